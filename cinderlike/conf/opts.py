"""Entry point for oslo-config-generator: every option cinderlike declares, by group."""

from cinderlike import conf as conf_pkg
from cinderlike.drivers.backup import posix, swift

# Backup driver options live in their driver module and sit in [DEFAULT], as in Cinder; the
# backup manager registers the configured driver's own.
BACKUP_DRIVERS = (posix, swift)


def list_opts():
    groups = {}
    for module in conf_pkg.modules():
        for group, opts in module.list_opts():
            groups.setdefault(group, []).extend(opts)
    for driver in BACKUP_DRIVERS:
        groups.setdefault(None, []).extend(driver.DRIVER_OPTS)
    return sorted(groups.items(), key=lambda item: (item[0] is not None, item[0] or ''))
