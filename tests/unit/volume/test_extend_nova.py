"""An in-use volume extended through VolumeManager.extend_volume tells Nova
(`volume-extended`, 2.51) at a real HTTP server standing in for its compute API; Nova not
told is user message VOLUME_VOLUME_007_009 only, the volume extended and in-use."""

import pytest
from keystoneauth1 import loading as ks_loading

from cinderlike import quota
from cinderlike.db import attachments as db_attachments
from cinderlike.db import volumes as db_volumes
from tests.fixtures import daemons, fake_nova
from tests.unit.volume.conftest import (
    PROJECT,
    add_volume,
    claimed,
    ctx,
    event_ids,
    grow_claim,
    notified,
    row,
    usage,
)

CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.1993-08.org.debian:01:abc',
             'mountpoint': '/dev/vdb'}
INSTANCE = '6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11'


@pytest.fixture
def fake():
    with fake_nova.running() as fake:
        yield fake


def _nova_at(conf, endpoint):
    conf.set_override('auth_type', 'none', group='nova')
    conf.register_opts(ks_loading.get_auth_plugin_conf_options('none'), group='nova')
    conf.set_override('endpoint', endpoint, group='nova')


def _attached(manager, db, *instance_uuids):
    """A created volume with one completed attachment per entry of *instance_uuids*."""
    volume = add_volume(db, size=1, multiattach=len(instance_uuids) > 1)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    for instance_uuid in instance_uuids:
        attachment = db_attachments.reserve(db, volume_id=volume.id,
                                            instance_uuid=instance_uuid, attach_mode='null')
        manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=attachment.id,
                                  connector=dict(CONNECTOR))
        db_attachments.complete(db, attachment_id=attachment.id)
    return volume


def _extend(manager, db, volume, *, new_size=3):
    """Extend *volume* as the API (extend_attached) and the scheduler leave it, then run it."""
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='extend_attached')
    deltas = {'gigabytes': new_size - 1, 'gigabytes___DEFAULT__': new_size - 1}
    reservations = quota.reserve(db, ctx(), conf=daemons.make_conf(), project_id=PROJECT,
                                 deltas=deltas)
    grow_claim(db, new_size - 1)
    manager.extend_volume(ctx(), volume_id=volume.id, new_size=new_size,
                                 reservations=reservations)


def _still_extended(db, volume_id):
    done = row(db, volume_id)
    assert (done.status, done.attach_status, done.size) == ('in-use', 'attached', 3)
    assert usage(db, 'gigabytes') == (3, 0) and claimed(db) == 3
    assert notified()[-2:] == ['volume.resize.start', 'volume.resize.end']


def test_extend_of_an_attached_volume_tells_nova(manager, db, conf, fake):
    _nova_at(conf, fake.compute_url)
    other = '9a3e8c4b-1f2d-4e5a-8b6c-7d8e9f0a1b2c'
    volume = _attached(manager, db, INSTANCE, other)
    assert row(db, volume.id).status == 'in-use'
    _extend(manager, db, volume)
    _still_extended(db, volume.id)
    (posted,) = fake.events_posted()
    assert posted.body == {'events': [
        {'name': 'volume-extended', 'server_uuid': server, 'tag': volume.id}
        for server in (INSTANCE, other)]}
    assert posted.headers['OpenStack-API-Version'] == 'compute 2.51'
    assert event_ids(db) == []


@pytest.mark.parametrize('status, logged', [(404, 'Nova returned NotFound for events'),
                                            (500, 'Failed to notify nova on events')])
def test_nova_failing_is_a_user_message_only(manager, db, conf, fake, caplog, status, logged):
    fake.answer = lambda events: (status, {'computeFault': {'code': status, 'message': 'x'}})
    _nova_at(conf, fake.compute_url)
    volume = _attached(manager, db, INSTANCE)
    _extend(manager, db, volume)
    _still_extended(db, volume.id)
    assert len(fake.events_posted()) == 1
    assert event_ids(db) == ['VOLUME_VOLUME_007_009']
    assert logged in caplog.text


def test_nova_refusing_connections_is_a_user_message_only(manager, db, conf):
    _nova_at(conf, fake_nova.refused_url())
    volume = _attached(manager, db, INSTANCE)
    _extend(manager, db, volume)
    _still_extended(db, volume.id)
    assert event_ids(db) == ['VOLUME_VOLUME_007_009']


def test_no_server_attachment_no_event(manager, db, conf, fake):
    """Glance's cinder store attaches without an instance_uuid: Nova is not asked."""
    _nova_at(conf, fake.compute_url)
    volume = _attached(manager, db, None)
    _extend(manager, db, volume)
    _still_extended(db, volume.id)
    assert fake.requests == [] and event_ids(db) == []


def test_detached_volume_extend_does_not_call_nova(manager, db, conf, fake):
    _nova_at(conf, fake.compute_url)
    volume = add_volume(db, size=1)
    manager.create_volume(ctx(), volume_id=volume.id, request_spec={}, filter_properties={})
    db_volumes.MACHINE.reset(db, row_id=volume.id, values={'status': 'available'})
    db_volumes.MACHINE.begin(db, row_id=volume.id, action='extend')
    reservations = quota.reserve(db, ctx(), conf=daemons.make_conf(), project_id=PROJECT,
                                 deltas={'gigabytes': 2, 'gigabytes___DEFAULT__': 2})
    manager.extend_volume(ctx(), volume_id=volume.id, new_size=3, reservations=reservations)
    assert (row(db, volume.id).status, row(db, volume.id).size) == ('available', 3)
    assert fake.requests == [] and event_ids(db) == []


def test_driver_failure_does_not_call_nova(manager, db, conf, fake):
    _nova_at(conf, fake.compute_url)
    volume = _attached(manager, db, INSTANCE)
    conf.set_override('fake_fail', ['extend_volume'], group='lvm')
    _extend(manager, db, volume)
    assert (row(db, volume.id).status, row(db, volume.id).size) == ('error_extending', 1)
    assert fake.requests == [] and event_ids(db) == ['VOLUME_VOLUME_007_010']
