"""An attachment of a file volume exported by a real user-space tgtd: the host writes with
the connection info attachment_update returned; tgtd and then the volume service restart
(tgtd forgets every target); the service's init_host re-exports the attached volume and the
host, with the connection info it already holds, reads its data and writes again."""

import hashlib
import uuid

import pytest

from cinderlike import context, coordination
from cinderlike.conf import volume as volume_conf
from cinderlike.db import attachments as db_attachments
from cinderlike.db import services as db_services
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base, file
from cinderlike.volume import manager as volume_manager
from tests.fixtures import daemons
from tests.fixtures import tgt as tgt_fixtures
from tests.functional.test_tgt_export import PATTERN, _login_refused, _read, _url, _write

pytestmark = [pytest.mark.tgt, pytest.mark.qemu_img]
tgtd = tgt_fixtures.tgtd

HOST = 'node1@iscsi-1'
CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.1993-08.org.debian:01:abc'}


@pytest.fixture
def conf(tmp_path, tgtd):
    conf = daemons.make_conf(host='node1', state_path=str(tmp_path))
    conf.set_override('backend_url', f'file://{tmp_path}/locks', group='coordination')
    volume_conf.register_backend(conf, 'iscsi-1', file.DRIVER_OPTS)
    for name, value in {'volume_driver': 'file', 'target_helper': 'tgtadm',
                        'target_ip_address': '127.0.0.1', 'target_port': tgtd.portal_port,
                        'tgt_control_port': tgtd.control_port,
                        'file_volume_directory': str(tmp_path / 'vols')}.items():
        conf.set_override(name, value, group='iscsi-1')
    yield conf
    daemons.close_transports()


@pytest.fixture
def db(tmp_path):
    db = daemons.make_db()
    db_types.create(db, name='__DEFAULT__', description='Default Volume Type')
    db_services.register(db, host=HOST, binary='cinder-volume', topic='cinder-volume',
                         availability_zone='nova')
    return db


@pytest.fixture
def coordinator(conf):
    made = coordination.Coordinator(conf, member_id='test-volume')
    made.start()
    yield made
    made.stop()


def _service(conf, db, coordinator):
    """A volume service of the backend, started as its daemon starts it."""
    manager = volume_manager.VolumeManager(conf, host=HOST, db=db, backend='iscsi-1',
                                           coordinator=coordinator)
    manager.init_host(context.get_admin_context())
    assert manager.initialized
    return manager


def _attached_volume(manager, db):
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    volume_id = str(uuid.uuid4())
    made = manager.driver.create_volume(base.VolumeRef(id=volume_id, name_id=volume_id,
                                                       size=1)) or {}
    db_volumes.create(db, values={
        'id': volume_id, 'project_id': 'p1', 'user_id': 'u1', 'status': 'available',
        'size': 1, 'host': f'{HOST}#iscsi-1', 'volume_type_id': vtype.id,
        'attach_status': 'detached', **made})
    attachment = db_attachments.reserve(db, volume_id=volume_id, instance_uuid=None,
                                        attach_mode='null')
    info = manager.attachment_update(context.get_admin_context(), volume_id=volume_id,
                                     attachment_id=attachment.id, connector=dict(CONNECTOR))
    db_attachments.complete(db, attachment_id=attachment.id)
    return volume_id, info


def test_attached_host_reads_and_writes_after_tgtd_and_the_service_restart(
        conf, db, coordinator, tgtd, tmp_path):
    manager = _service(conf, db, coordinator)
    volume_id, info = _attached_volume(manager, db)
    assert info['driver_volume_type'] == 'iscsi' and info['auth_method'] == 'CHAP'
    source = tmp_path / 'pattern'
    source.write_bytes(PATTERN)
    _write(_url(info), source)

    tgtd.restart()
    assert tgtd.target_ids() == [] and _login_refused(_url(info))

    restarted = _service(conf, db, coordinator)
    assert db_volumes.get(db, volume_id=volume_id).status == 'in-use'
    assert len(tgtd.target_ids()) == 1
    assert _read(_url(info), tmp_path / 'read') == hashlib.sha256(PATTERN).hexdigest()
    again = tmp_path / 'again'
    again.write_bytes(PATTERN[::-1])
    _write(_url(info), again)
    assert _read(_url(info), tmp_path / 'read2') == hashlib.sha256(PATTERN[::-1]).hexdigest()

    # Detaching removes the target: the host's credentials no longer open anything.
    (attachment,) = db_attachments.of_volume(db, volume_id=volume_id)
    db_attachments.begin_detach(db, attachment_id=attachment.id)
    restarted.attachment_delete(context.get_admin_context(), volume_id=volume_id,
                                attachment_id=attachment.id)
    db_attachments.finish_detach(db, volume_id=volume_id, attachment_id=attachment.id)
    assert tgtd.target_ids() == []
    assert db_volumes.get(db, volume_id=volume_id).status == 'available'
