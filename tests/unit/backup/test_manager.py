"""backup/manager.py: the backup host's capability reports reach the schedulers."""

from cinderlike import context, service
from cinderlike.backup import manager as backup_manager
from cinderlike.backup import rpcapi
from cinderlike.drivers.backup import posix
from cinderlike.scheduler import manager as scheduler_manager
from tests.fixtures import daemons

POSIX = 'cinder.backup.drivers.posix.PosixBackupDriver'


def posix_conf(tmp_path, **overrides):
    """A daemon conf whose backup service stores to posix under *tmp_path*."""
    conf = daemons.make_conf(**overrides)
    conf.register_opts(posix.DRIVER_OPTS)
    conf.set_override('backup_driver', 'posix')
    conf.set_override('backup_posix_path', str(tmp_path / 'backups'))
    return conf


def test_backup_service_reports_at_start_and_on_fanout_request(tmp_path):
    conf = posix_conf(tmp_path, report_interval=3600, periodic_interval=3600,
                      periodic_fuzzy_delay=0, storage_availability_zone='az9')
    db = daemons.make_db()
    scheduler = service.Service(conf, host='s1', manager_cls=scheduler_manager.SchedulerManager,
                                db=db, shared_transport=True)
    backup = service.Service(conf, host='b1', manager_cls=backup_manager.BackupManager,
                             db=db, shared_transport=True)
    scheduler.start()
    backup.start()
    try:
        reports = scheduler.manager.capabilities
        daemons.wait_for(lambda: reports.get('backup', 'b1') is not None)
        first = reports.get('backup', 'b1')
        assert first.capabilities == {'backend_state': True, 'availability_zone': 'az9',
                                      'driver_name': POSIX}
        rpcapi.BackupAPI(conf).publish_service_capabilities(context.get_admin_context())
        daemons.wait_for(lambda: reports.get('backup', 'b1').sequence == first.sequence + 1)
    finally:
        backup.stop()
        scheduler.stop()
        daemons.close_transports()


def test_backup_period_option(tmp_path):
    manager = backup_manager.BackupManager(posix_conf(tmp_path), host='b1', db=None)
    assert manager.periodic_option('backup_driver_stats_polling_interval') == 60
    daemons.close_transports()
