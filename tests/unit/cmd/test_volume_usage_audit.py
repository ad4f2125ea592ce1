"""cinderlike-volume-usage-audit end to end: config file in, oslo.messaging notifications out."""

import datetime

import pytest
from oslo_messaging.notify import _impl_test

from cinderlike.cmd import volume_usage_audit
from cinderlike.db import engine, models


@pytest.fixture
def audit_args(tmp_path):
    db_url = f'sqlite:///{tmp_path}/cinderlike.sqlite'
    database = engine.Database(db_url)
    models.Base.metadata.create_all(database.engine)
    with database.writer() as session:
        session.add(models.Volume(id='v1', volume_type_id='t1', project_id='p1', size=2,
                                  status='available',
                                  created_at=datetime.datetime(2024, 2, 10)))
    database.dispose()
    path = tmp_path / 'cinderlike.conf'
    path.write_text('[DEFAULT]\ntransport_url = fake:/\nhost = audit-host\n'
                    f'[database]\nconnection = {db_url}\n'
                    '[oslo_messaging_notifications]\ndriver = test\n')
    _impl_test.reset()
    # NOTE(logging): main() sets up oslo.log; a log file keeps its handler off pytest's
    # captured streams, which are closed once this test ends.
    yield ['--config-file', str(path), '--log-file', str(tmp_path / 'audit.log')]
    _impl_test.reset()


def test_sends_volume_exists_from_the_host_publisher(audit_args):
    code = volume_usage_audit.main([*audit_args,
                                    '--start_time', '2024-02-01 00:00:00',
                                    '--end_time', '2024-03-01 00:00:00', '--send_actions'])
    assert code == 0
    sent = [(message['event_type'], message['publisher_id'], priority,
             message['payload']['volume_id'])
            for _ctx, message, priority, _retry in _impl_test.NOTIFICATIONS]
    assert sent == [
        ('volume.exists', 'volume.audit-host', 'INFO', 'v1'),
        ('volume.create.start', 'volume.audit-host', 'INFO', 'v1'),
        ('volume.create.end', 'volume.audit-host', 'INFO', 'v1'),
    ]
    exists = _impl_test.NOTIFICATIONS[0][1]['payload']
    assert exists['audit_period_ending'] == '2024-03-01 00:00:00+00:00'
    assert exists['size'] == 2


def test_window_outside_the_volume_life_sends_nothing(audit_args):
    code = volume_usage_audit.main([*audit_args,
                                    '--start_time', '2024-01-01 00:00:00',
                                    '--end_time', '2024-02-01 00:00:00'])
    assert code == 0
    assert _impl_test.NOTIFICATIONS == []


def test_end_before_start_exits_255(audit_args, capsys):
    code = volume_usage_audit.main([*audit_args,
                                    '--start_time', '2024-03-01 00:00:00',
                                    '--end_time', '2024-02-01 00:00:00'])
    assert code == 255
    assert 'must be after the start time' in capsys.readouterr().err
