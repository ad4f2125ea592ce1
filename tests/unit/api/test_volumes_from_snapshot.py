"""POST /volumes with snapshot_id (and the sources not served yet): size, type and backend
come from the snapshot; every refusal writes no volume and leaves the quota alone."""

import pytest

from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from tests.unit.api.type_fixtures import OTHER
from tests.unit.api.volume_fixtures import add_volume, fault, post, usages, user, volume_rows

ZERO = '00000000-0000-0000-0000-000000000000'


def _snapshot(db, *, status='available', size=2, type_name='__DEFAULT__', project='admin'):
    volume = add_volume(db, size=size, type_name=type_name, project=project,
                        host='node@fake#pool')
    snapshot = db_snapshots.create(db, values={
        'volume_id': volume.id, 'project_id': project, 'user_id': 'u1', 'volume_size': size,
        'volume_type_id': volume.volume_type_id})
    db_snapshots.MACHINE.reset(db, row_id=snapshot.id, values={'status': status})
    return volume, snapshot


def test_a_volume_from_a_snapshot_takes_its_size_type_and_backend(vclient, db, rpc):
    db_types.create(db, name='gold')
    source, snapshot = _snapshot(db, size=3, type_name='gold')
    resp = post(vclient, {'volume': {'snapshot_id': snapshot.id}})
    assert resp.status_code == 202
    shown = resp.json['volume']
    assert (shown['size'], shown['snapshot_id'], shown['volume_type']) == (3, snapshot.id,
                                                                           'gold')
    (method, kwargs), = rpc.scheduler.calls
    spec = kwargs['request_spec']
    assert spec['snapshot_id'] == snapshot.id
    assert spec['resource_backend'] == 'node@fake'
    assert usages(db)['volumes_gold'][0] >= 1


def test_a_bigger_volume_from_a_snapshot_is_allowed(vclient, db):
    _source, snapshot = _snapshot(db, size=2)
    resp = post(vclient, {'volume': {'snapshot_id': snapshot.id, 'size': 5}})
    assert resp.status_code == 202 and resp.json['volume']['size'] == 5


@pytest.mark.parametrize('extra, code, message', [
    ({'size': 1}, 400, "Invalid input received: Volume size '1'GB cannot be smaller than the "
                       'snapshot size 2GB. They must be >= original snapshot size.'),
    ({'availability_zone': 'other'}, 400, None),
])
def test_a_volume_from_a_snapshot_refused(vclient, db, rpc, extra, code, message):
    _source, snapshot = _snapshot(db, size=2)
    before = usages(db)
    got_code, got_message = fault(post(vclient, {'volume': {'snapshot_id': snapshot.id,
                                                            **extra}}))
    assert got_code == code
    if message is not None:
        assert got_message == message
    assert len(volume_rows(db)) == 1 and usages(db) == before and rpc.scheduler.calls == []


@pytest.mark.parametrize('status', ['creating', 'error', 'deleting'])
def test_a_snapshot_that_is_not_available_is_refused(vclient, db, rpc, status):
    _source, snapshot = _snapshot(db, status=status)
    assert fault(post(vclient, {'volume': {'snapshot_id': snapshot.id}})) == (
        400, "Invalid snapshot: Originating snapshot status must be one of 'available' "
             'values')
    assert len(volume_rows(db)) == 1 and rpc.scheduler.calls == []


@pytest.mark.parametrize('body, code, message', [
    ({'snapshot_id': ZERO}, 404, f'Snapshot {ZERO} could not be found.'),
    ({'size': 1, 'imageRef': 'cirros'}, 400,
     'Invalid input received: Creating a volume from an image is not supported: no image '
     'service (Glance) is configured.'),
    ({'size': 1, 'image_id': 'cirros'}, 400, None),
    ({'size': 1, 'snapshot_id': ZERO, 'source_volid': ZERO}, 400,
     'Invalid input received: May specify only one of backup, imageRef, snapshot, '
     'source volume'),
])
def test_sources_that_cannot_be_used_write_nothing(vclient, db, rpc, body, code, message):
    got_code, got_message = fault(post(vclient, {'volume': body}))
    assert got_code == code
    if message is not None:
        assert got_message == message
    assert volume_rows(db) == [] and rpc.scheduler.calls == []
    assert all(amounts == (0, 0) for amounts in usages(db).values())


def test_another_projects_snapshot_is_not_found(kclient, db, rpc):
    _source, snapshot = _snapshot(db, project=OTHER)
    resp = post(kclient, {'volume': {'snapshot_id': snapshot.id}}, headers=user())
    assert fault(resp) == (404, f'Snapshot {snapshot.id} could not be found.')
