"""volume/rpcapi.py: every cluster-aware method goes to the cluster's queue when the resource
has a cluster_name, to its host's queue otherwise."""

import pytest

from cinderlike import context
from cinderlike.volume import rpcapi
from tests.fixtures import daemons


class RecordingClient:
    """Stands in for the oslo.messaging client: keeps (topic, server, method) of each send."""

    def __init__(self):
        self.sent = []

    def prepare(self, **target):
        client = self

        class Prepared:
            def cast(self, ctxt, method, **kwargs):
                client.sent.append((target.get('topic'), target.get('server'), method))

            call = cast
        return Prepared()


CLUSTER_AWARE = {
    'create_volume': {'volume_id': 'v1', 'request_spec': {}, 'filter_properties': {}},
    'delete_volume': {'volume_id': 'v1'},
    'extend_volume': {'volume_id': 'v1', 'new_size': 2, 'reservations': []},
    'do_cleanup': {'cleanup_request': {}},
    'attachment_update': {'volume_id': 'v1', 'attachment_id': 'a1', 'connector': {}},
    'attachment_delete': {'volume_id': 'v1', 'attachment_id': 'a1'},
    'initialize_connection': {'volume_id': 'v1', 'connector': {}},
    'terminate_connection': {'volume_id': 'v1', 'connector': {}},
    'attach_volume': {'volume_id': 'v1', 'instance_uuid': None, 'host_name': 'h',
                      'mountpoint': '/m', 'mode': 'rw'},
    'detach_volume': {'volume_id': 'v1', 'attachment_id': None},
    'remove_export': {'volume_id': 'v1'},
}


@pytest.mark.parametrize('method', sorted(CLUSTER_AWARE))
@pytest.mark.parametrize('cluster_name, topic, server', [
    ('cl1@lvm#pool', 'cinder-volume.cl1@lvm', 'cl1'),
    (None, 'cinder-volume.node1@lvm', 'node1')])
def test_cluster_aware_methods(method, cluster_name, topic, server):
    api = rpcapi.VolumeAPI(daemons.make_conf())
    api.client = RecordingClient()
    getattr(api, method)(context.get_admin_context(), host='node1@lvm#pool',
                         cluster_name=cluster_name, **CLUSTER_AWARE[method])
    assert api.client.sent == [(topic, server, method)]
