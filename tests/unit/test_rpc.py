"""rpc.py: a cinderlike exception raised by a call's server comes back as itself."""

import oslo_messaging as messaging
import pytest

from cinderlike import context, exception, rpc
from tests.fixtures import daemons


class Endpoint:
    target = messaging.Target(version='1.0')

    def lookup(self, ctxt, volume_id):
        raise exception.VolumeNotFound(volume_id=volume_id)


def test_a_remote_cinderlike_exception_keeps_its_class_and_code():
    conf = daemons.make_conf()
    server = rpc.get_server(conf, topic='t-exmods', server='h', endpoints=[Endpoint()],
                            version='1.0')
    server.start()
    try:
        client = rpc.get_client(conf, topic='t-exmods', version='1.0').prepare(timeout=10)
        with pytest.raises(exception.VolumeNotFound) as raised:
            client.call(context.get_admin_context(), 'lookup', volume_id='v1')
        assert raised.value.code == 404
    finally:
        server.stop()
        server.wait()
        daemons.close_transports()
