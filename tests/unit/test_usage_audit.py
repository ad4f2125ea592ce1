"""The audit window (Cinder's last_completed_audit_period) and which volumes get notified."""

import datetime

import pytest

from cinderlike import usage_audit
from cinderlike.db import engine, models

D = datetime.datetime


@pytest.mark.parametrize('spec, now, expected', [
    ('month', D(2024, 3, 10, 12), (D(2024, 2, 1), D(2024, 3, 1))),
    ('month', D(2024, 3, 1), (D(2024, 1, 1), D(2024, 2, 1))),
    ('month', D(2024, 1, 5), (D(2023, 12, 1), D(2024, 1, 1))),
    ('month@15', D(2024, 3, 10), (D(2024, 1, 15), D(2024, 2, 15))),
    ('month@15', D(2024, 3, 20), (D(2024, 2, 15), D(2024, 3, 15))),
    ('month@15', D(2024, 1, 10), (D(2023, 11, 15), D(2023, 12, 15))),
    ('year', D(2024, 6, 1), (D(2023, 1, 1), D(2024, 1, 1))),
    ('year@3', D(2024, 2, 1), (D(2022, 3, 1), D(2023, 3, 1))),
    ('year@3', D(2024, 4, 1), (D(2023, 3, 1), D(2024, 3, 1))),
    ('day', D(2024, 3, 10, 5, 30), (D(2024, 3, 9), D(2024, 3, 10))),
    ('day@18', D(2024, 3, 10, 5), (D(2024, 3, 8, 18), D(2024, 3, 9, 18))),
    ('day@18', D(2024, 3, 1, 19), (D(2024, 2, 29, 18), D(2024, 3, 1, 18))),
    ('hour', D(2024, 3, 10, 5, 30), (D(2024, 3, 10, 4), D(2024, 3, 10, 5))),
    ('hour@45', D(2024, 3, 10, 5, 30), (D(2024, 3, 10, 3, 45), D(2024, 3, 10, 4, 45))),
    # At the very boundary the period that ends now does not count as completed (Cinder).
    ('hour', D(2024, 1, 1, 0, 0), (D(2023, 12, 31, 22), D(2023, 12, 31, 23))),
])
def test_last_completed_period(spec, now, expected):
    assert usage_audit.last_completed_period(spec, now) == expected


def test_unknown_unit_is_refused():
    with pytest.raises(ValueError, match='hour, day, month or year'):
        usage_audit.last_completed_period('week', D(2024, 1, 1))


def test_start_and_end_time_override_the_period():
    begin, end = usage_audit.window('month', now=D(2024, 3, 10),
                                    start_time='2024-02-10 00:00:00',
                                    end_time='2024-02-20 06:00:00')
    assert (begin, end) == (D(2024, 2, 10), D(2024, 2, 20, 6))


def test_end_before_start_is_refused():
    with pytest.raises(ValueError, match='must be after the start time'):
        usage_audit.window('month', now=D(2024, 3, 10), start_time='2024-02-20 00:00:00',
                           end_time='2024-02-10 00:00:00')


class RecordingNotifier:
    """Stands in for an oslo.messaging Notifier: keeps (event_type, payload) in order."""

    def __init__(self):
        self.sent = []

    def info(self, ctx, event_type, payload):
        self.sent.append((event_type, payload))


def _volume(volume_id, created, deleted=None, **extra):
    return models.Volume(id=volume_id, volume_type_id='type-1', project_id='p1', user_id='u1',
                         size=1, status='deleted' if deleted else 'available', host='h@b#p',
                         availability_zone='nova',
                         created_at=created, deleted_at=deleted, deleted=deleted is not None,
                         **extra)


def _snapshot(snapshot_id, volume_id, created, deleted=None):
    return models.Snapshot(id=snapshot_id, volume_id=volume_id, volume_type_id='type-1',
                           project_id='p1', user_id='u1', volume_size=1, display_name='s',
                           status='deleted' if deleted else 'available', created_at=created,
                           deleted_at=deleted, deleted=deleted is not None)


@pytest.fixture
def db():
    database = engine.Database('sqlite://')
    models.Base.metadata.create_all(database.engine)
    with database.writer() as session:
        session.add_all([
            _volume('v-before', D(2024, 1, 5)),
            _volume('v-inside', D(2024, 2, 10), launched_at=D(2024, 2, 10, 0, 1)),
            _volume('v-gone-inside', D(2024, 1, 5), deleted=D(2024, 2, 20)),
            _volume('v-gone-before', D(2024, 1, 5), deleted=D(2024, 1, 20)),
            _volume('v-after', D(2024, 3, 2)),
            models.VolumeMetadata(volume_id='v-inside', key='k', value='v'),
            models.VolumeMetadata(volume_id='v-inside', key='old', value='x', deleted=True),
            models.VolumeAttachment(id='a1', volume_id='v-before', instance_uuid='i1',
                                    attach_status='attached', connection_info='{"secret": 1}'),
        ])
    with database.writer() as session:
        session.add_all([
            _snapshot('s-inside', 'v-gone-inside', D(2024, 2, 11), deleted=D(2024, 2, 15)),
            _snapshot('s-before', 'v-before', D(2024, 1, 6)),
            _snapshot('s-gone-before', 'v-before', D(2024, 1, 6), deleted=D(2024, 1, 7)),
        ])
    with database.writer() as session:
        session.add(models.SnapshotMetadata(snapshot_id='s-before', key='sk', value='sv'))
    yield database
    database.dispose()


def _audit(db, **kwargs):
    notifier = RecordingNotifier()
    count = usage_audit.audit_volumes(db, notifier, None, begin=D(2024, 2, 1),
                                      end=D(2024, 3, 1), now=D(2024, 3, 2), **kwargs)
    return count, notifier.sent


def test_exists_for_every_volume_alive_in_the_window(db):
    count, sent = _audit(db)
    assert count == 3
    assert [(event, p['volume_id']) for event, p in sent] == [
        ('volume.exists', 'v-before'), ('volume.exists', 'v-gone-inside'),
        ('volume.exists', 'v-inside')]
    payload = dict(sent[2][1])
    assert payload['audit_period_beginning'] == '2024-02-01 00:00:00+00:00'
    assert payload['audit_period_ending'] == '2024-03-01 00:00:00+00:00'
    assert payload['tenant_id'] == 'p1' and payload['volume_type'] == 'type-1'
    assert payload['launched_at'] == '2024-02-10T00:01:00'
    assert payload['metadata'] == {'k': 'v'}
    attachments = dict(sent[0][1])['volume_attachment']
    assert [(a['id'], a['instance_uuid']) for a in attachments] == [('a1', 'i1')]
    assert 'connection_info' not in attachments[0]


def test_send_actions_replays_create_and_delete_inside_the_window(db):
    _, sent = _audit(db, send_actions=True)
    events = [(event, p['volume_id'], p['audit_period_beginning']) for event, p in sent]
    assert events == [
        ('volume.exists', 'v-before', '2024-02-01 00:00:00+00:00'),
        ('volume.exists', 'v-gone-inside', '2024-02-01 00:00:00+00:00'),
        ('volume.delete.start', 'v-gone-inside', '2024-02-20 00:00:00'),
        ('volume.delete.end', 'v-gone-inside', '2024-02-20 00:00:00'),
        ('volume.exists', 'v-inside', '2024-02-01 00:00:00+00:00'),
        ('volume.create.start', 'v-inside', '2024-02-10 00:00:00'),
        ('volume.create.end', 'v-inside', '2024-02-10 00:00:00'),
    ]


def test_snapshot_exists_for_every_snapshot_alive_in_the_window(db):
    notifier = RecordingNotifier()
    count = usage_audit.audit_snapshots(db, notifier, None, begin=D(2024, 2, 1),
                                        end=D(2024, 3, 1), send_actions=True)
    assert count == 2
    events = [(event, p['snapshot_id'], p['audit_period_beginning'])
              for event, p in notifier.sent]
    assert events == [
        ('snapshot.exists', 's-before', '2024-02-01 00:00:00+00:00'),
        ('snapshot.exists', 's-inside', '2024-02-01 00:00:00+00:00'),
        ('snapshot.create.start', 's-inside', '2024-02-11 00:00:00'),
        ('snapshot.create.end', 's-inside', '2024-02-11 00:00:00'),
        ('snapshot.delete.start', 's-inside', '2024-02-15 00:00:00'),
        ('snapshot.delete.end', 's-inside', '2024-02-15 00:00:00'),
    ]
    payload = notifier.sent[0][1]
    assert (payload['tenant_id'], payload['volume_id'], payload['volume_size']) == (
        'p1', 'v-before', 1)
    assert payload['metadata'] == str({'sk': 'sv'}) and payload['deleted'] == 'False'
    # the snapshot of a deleted volume still reports that volume's zone
    assert notifier.sent[1][1]['availability_zone'] == 'nova'


def test_backup_exists_for_every_backup_alive_in_the_window(db):
    with db.writer() as session:
        session.add_all([
            models.Backup(id='b-before', volume_id='v-before', project_id='p1', user_id='u1',
                          size=1, status='available', host='bk1', created_at=D(2024, 1, 6),
                          service='cinderlike.drivers.backup.posix.PosixBackupDriver'),
            models.Backup(id='b-inside', volume_id='v-inside', project_id='p1', size=2,
                          status='deleted', created_at=D(2024, 2, 11),
                          deleted_at=D(2024, 2, 15), deleted=True),
            models.Backup(id='b-after', volume_id='v-inside', project_id='p1', size=2,
                          status='available', created_at=D(2024, 3, 5)),
        ])
    notifier = RecordingNotifier()
    count = usage_audit.audit_backups(db, notifier, None, begin=D(2024, 2, 1),
                                      end=D(2024, 3, 1), send_actions=True)
    assert count == 2
    events = [(event, p['backup_id']) for event, p in notifier.sent]
    assert events == [
        ('backup.exists', 'b-before'), ('backup.exists', 'b-inside'),
        ('backup.create.start', 'b-inside'), ('backup.create.end', 'b-inside'),
        ('backup.delete.start', 'b-inside'), ('backup.delete.end', 'b-inside'),
    ]
    payload = notifier.sent[0][1]
    assert (payload['tenant_id'], payload['size'], payload['host'], payload['service'],
            payload['audit_period_ending']) == (
        'p1', 1, 'bk1', 'cinderlike.drivers.backup.posix.PosixBackupDriver',
        '2024-03-01 00:00:00+00:00')
