"""scheduler/manager.py manage_existing(+_snapshot): the named backend must pass the filters
(size 0 for a volume); the volume gets its pool and goes to that backend, else it ends
`error_managing` (a snapshot `error`) and nothing is cast."""

from cinderlike.db import pools as db_pools
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from tests.unit.scheduler import placing, test_manager
from tests.unit.scheduler.test_manager import _creating_snapshot

db, manager, ctxt = test_manager.db, test_manager.manager, test_manager.ctxt


def _managing(rows, host):
    volume_id = placing.add_volume(rows, size=0, status='managing', host=host)
    return volume_id, {'volume_id': volume_id, 'ref': {'source-name': 'x'},
                       'volume_properties': {'size': 0}, 'volume_type': {
                           'id': 'vt', 'name': 'vt-type', 'extra_specs': {}}}


def test_manage_places_the_volume_on_the_named_backends_pool_and_casts(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100, free=0)
    volume_id, spec = _managing(db, 'n1@lvm')
    manager.manage_existing(ctxt, volume_id=volume_id, ref={'source-name': 'x'},
                            request_spec=spec)
    (name, _, kwargs), = manager.volume_api.calls
    assert (name, kwargs['volume_id'], kwargs['host'], kwargs['ref']) == (
        'manage_existing', volume_id, 'n1@lvm#pool1', {'source-name': 'x'})
    volume = db_volumes.get(db, volume_id=volume_id)
    assert (volume.host, volume.status) == ('n1@lvm#pool1', 'managing')
    # NOTE(capacity): nothing is claimed before the driver found the size.
    assert db_pools.claims(db).get('n1@lvm#pool1', (0, 0)) == (0, 0)


def test_manage_on_a_backend_without_reports_ends_error_managing(manager, db, ctxt):
    volume_id, spec = _managing(db, 'gone@lvm')
    manager.manage_existing(ctxt, volume_id=volume_id, ref='x', request_spec=spec)
    assert db_volumes.get(db, volume_id=volume_id).status == 'error_managing'
    assert manager.volume_api.calls == []


def test_a_volume_reset_before_placement_is_not_handed_over(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id, spec = _managing(db, 'n1@lvm')
    db_volumes.MACHINE.reset(db, row_id=volume_id, values={'status': 'error'})
    manager.manage_existing(ctxt, volume_id=volume_id, ref='x', request_spec=spec)
    assert manager.volume_api.calls == []
    assert db_volumes.get(db, volume_id=volume_id).host == 'n1@lvm'


def test_snapshot_manage_checks_the_volumes_backend(manager, db, ctxt):
    placing.add_backend(db, manager, 'n1@lvm', total=100)
    volume_id = placing.add_volume(db, size=10, status='available', host='n1@lvm#pool1')
    snapshot = _creating_snapshot(db, volume_id)
    manager.manage_existing_snapshot(ctxt, snapshot_id=snapshot.id, volume_id=volume_id,
                                     ref='snap', request_spec={
                                         'snapshot_id': snapshot.id,
                                         'volume_properties': {'size': 10}})
    (name, _, kwargs), = manager.volume_api.calls
    assert (name, kwargs['snapshot_id'], kwargs['ref'], kwargs['host']) == (
        'manage_existing_snapshot', snapshot.id, 'snap', 'n1@lvm#pool1')
    lost = placing.add_volume(db, size=10, status='available', host='gone@lvm#pool1')
    orphan = _creating_snapshot(db, lost)
    manager.manage_existing_snapshot(ctxt, snapshot_id=orphan.id, volume_id=lost, ref='s',
                                     request_spec={'snapshot_id': orphan.id,
                                                   'volume_properties': {'size': 10}})
    assert db_snapshots.get(db, snapshot_id=orphan.id).status == 'error'
    assert len(manager.volume_api.calls) == 1
