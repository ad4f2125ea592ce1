"""POST /backups: row, source status, quota and cast; every refusal writes nothing."""

import oslo_messaging as messaging
import pytest

from cinderlike.db import backups as db_backups
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from tests.unit.api.backup_fixtures import (
    add_backup,
    backup_rows,
    backup_usage,
    create,
    nothing_held,
)
from tests.unit.api.snapshot_fixtures import add_snapshot
from tests.unit.api.volume_fixtures import add_volume, fault, usages

MISSING = '9b1d3e2c-2d4a-4c39-8a42-7d3f9f0e1a11'


def test_create_inserts_creating_holds_the_volume_and_casts_to_the_scheduler(bclient, db,
                                                                              brpc):
    volume = add_volume(db, size=3)
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'name': ' nightly ',
                                       'description': ' d ', 'container': 'c1'}})
    assert resp.status_code == 202
    shown = resp.json['backup']
    assert set(shown) == {'id', 'name', 'links'}
    assert shown['name'] == 'nightly'
    assert shown['links'][0]['href'].endswith(f'/v3/admin/backups/{shown["id"]}')
    row = db_backups.get(db, backup_id=shown['id'])
    assert (row.status, row.size, row.container, row.display_description, row.parent_id,
            row.data_timestamp) == ('creating', 3, 'c1', 'd', None, row.created_at)
    held = db_volumes.get(db, volume_id=volume.id)
    assert (held.status, held.previous_status) == ('backing-up', 'available')
    assert brpc.scheduler.calls == [('create_backup', {'backup_id': row.id})]
    assert backup_usage(db) == {'backups': (1, 0), 'backup_gigabytes': (3, 0)}


def test_in_use_volumes_need_force(bclient, db):
    volume = add_volume(db, status='in-use')
    resp = create(bclient, {'backup': {'volume_id': volume.id}})
    assert fault(resp) == (400, 'Invalid volume: Backing up an in-use volume must use the '
                                'force flag.')
    assert backup_rows(db) == [] and nothing_held(db)
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'force': 'true'}})
    assert resp.status_code == 202
    held = db_volumes.get(db, volume_id=volume.id)
    assert (held.status, held.previous_status) == ('backing-up', 'in-use')


@pytest.mark.parametrize('status', ['error', 'creating', 'backing-up', 'restoring-backup'])
def test_volume_status_must_allow_a_backup(bclient, db, status):
    volume = add_volume(db, status=status)
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'force': True}})
    assert fault(resp) == (400, 'Invalid volume: Volume to be backed up must be available or '
                                f'in-use, but the current status is "{status}".')
    assert backup_rows(db) == [] and nothing_held(db)
    assert db_volumes.get(db, volume_id=volume.id).status == status


def test_a_snapshot_backup_holds_the_snapshot_and_keeps_its_time(bclient, db):
    volume = add_volume(db, size=2)
    snapshot = add_snapshot(db, volume)
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'snapshot_id': snapshot.id}})
    assert resp.status_code == 202
    row = db_backups.get(db, backup_id=resp.json['backup']['id'])
    assert (row.snapshot_id, row.data_timestamp) == (snapshot.id, snapshot.created_at)
    assert db_snapshots.get(db, snapshot_id=snapshot.id).status == 'backing-up'
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'


def test_snapshot_refusals(bclient, db):
    volume, other = add_volume(db), add_volume(db)
    snapshot = add_snapshot(db, other)
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'snapshot_id': snapshot.id}})
    assert fault(resp) == (400, f'Invalid volume: Volume {volume.id} does not match with '
                                f'snapshot.volume_id {other.id}.')
    busy = add_snapshot(db, volume, status='creating')
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'snapshot_id': busy.id}})
    assert fault(resp) == (400, 'Invalid snapshot: Snapshot to be backed up must be '
                                'available, but the current status is "creating".')
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'snapshot_id': MISSING}})
    assert fault(resp) == (404, f'Snapshot {MISSING} could not be found.')
    assert backup_rows(db) == [] and nothing_held(db)


def test_incremental_takes_the_latest_available_backup_as_parent(bclient, db):
    volume = add_volume(db)
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'incremental': True}})
    assert fault(resp) == (400, 'Invalid backup: No backups available to do an incremental '
                                'backup.')
    assert nothing_held(db) and db_volumes.get(db, volume_id=volume.id).status == 'available'
    full = add_backup(db, volume)
    add_backup(db, volume, status='error')
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'incremental': True}})
    assert resp.status_code == 202
    row = db_backups.get(db, backup_id=resp.json['backup']['id'])
    assert row.parent_id == full.id
    # The posix parent's host is kept: its objects are there.
    assert row.host == 'bk1'
    assert db_backups.get(db, backup_id=full.id).num_dependent_backups == 1


def test_over_quota_is_413_and_writes_nothing(bclient, db, conf):
    conf.set_override('quota_backup_gigabytes', 2)
    volume = add_volume(db, size=3)
    resp = create(bclient, {'backup': {'volume_id': volume.id}})
    assert fault(resp) == (413, 'VolumeBackupSizeExceedsAvailableQuota: Requested backup '
                                'exceeds allowed Backup gigabytes quota. Requested 3G, '
                                'quota is 2G and 0G has been consumed.')
    assert backup_rows(db) == [] and nothing_held(db)
    assert db_volumes.get(db, volume_id=volume.id).status == 'available'


@pytest.mark.parametrize('body, version, message', [
    ({'backup': {}}, None, "Invalid input for field/attribute backup. Value: {}. 'volume_id' "
     'is a required property'),
    ({'backup': {'volume_id': 'nope'}}, None, "Invalid input for field/attribute volume_id."),
    ({'backup': {'volume_id': MISSING, 'metadata': {'k': 'v'}}}, '3.42',
     'Invalid input for field/attribute backup.'),
    ({'backup': {'volume_id': MISSING, 'availability_zone': 'z'}}, '3.50',
     'Invalid input for field/attribute backup.'),
    ({'backup': {'volume_id': MISSING, 'incremental': 'maybe'}}, None,
     'Invalid input for field/attribute incremental.'),
    ({'backup': {'volume_id': MISSING, 'container': 'x' * 256}}, None,
     'Invalid input for field/attribute container.'),
    ({'volume_id': MISSING}, None, "'backup' is a required property"),
])
def test_bad_bodies_are_400(bclient, db, body, version, message):
    resp = create(bclient, body, version=version)
    code, text = fault(resp)
    assert code == 400 and text.startswith(message), text
    assert backup_rows(db) == []


def test_unknown_volume_is_404(bclient, db):
    resp = create(bclient, {'backup': {'volume_id': MISSING}})
    assert fault(resp) == (404, f'Volume {MISSING} could not be found.')
    assert backup_rows(db) == [] and nothing_held(db)


def test_metadata_and_availability_zone_by_microversion(bclient, db):
    volume = add_volume(db)
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'metadata': {'k': 'v'},
                                       'availability_zone': 'az2'}}, version='3.51')
    assert resp.status_code == 202
    row = db_backups.get(db, backup_id=resp.json['backup']['id'])
    assert row.availability_zone == 'az2'
    assert db_backups.get_metadata(db, backup_ids=[row.id])[row.id] == {'k': 'v'}


@pytest.mark.parametrize('error,code', [
    (messaging.MessageDeliveryFailure('Unable to connect to AMQP server'), 503),
    (RuntimeError('a bug'), 500)])
def test_a_failed_cast_removes_the_backup_and_returns_the_volume(bclient, db, brpc, error,
                                                                 code):
    def broken(ctx, **kwargs):
        raise error
    brpc.scheduler.create_backup = broken
    volume = add_volume(db, status='in-use')
    resp = create(bclient, {'backup': {'volume_id': volume.id, 'force': True}})
    assert resp.status_code == code
    assert backup_rows(db) == []
    assert db_volumes.get(db, volume_id=volume.id).status == 'in-use'
    assert {k: v for k, v in usages(db).items() if k.startswith('backup')} in (
        {}, {'backups': (0, 0), 'backup_gigabytes': (0, 0)})


def test_members_create_in_their_project_and_readers_may_not(bkclient, db):
    from tests.unit.api.type_fixtures import PROJECT, user
    volume = add_volume(db, project=PROJECT)
    resp = create(bkclient, {'backup': {'volume_id': volume.id}}, headers=user('reader'))
    assert fault(resp)[0] == 403
    resp = create(bkclient, {'backup': {'volume_id': volume.id}}, headers=user())
    assert resp.status_code == 202
