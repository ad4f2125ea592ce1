"""cinderlike-status: `cinderlike-status upgrade check`, as cinder-status (oslo.upgradecheck).

Exit codes: 0 every check passed, 1 a warning to review, 2 a failure that blocks an
upgrade, 255 a check that crashed.
"""

import sys

import sqlalchemy as sa
from oslo_config import cfg
from oslo_upgradecheck import upgradecheck

from cinderlike import conf as cl_conf
from cinderlike.db import migration

SUCCESS = upgradecheck.Code.SUCCESS
WARNING = upgradecheck.Code.WARNING
FAILURE = upgradecheck.Code.FAILURE

DEFAULT_PERIODIC_INTERVAL = 60


class Checks(upgradecheck.UpgradeCommands):
    """The checks an operator runs with the new code before restarting services."""

    def __init__(self, conf: cfg.ConfigOpts):
        super().__init__()
        self._conf = conf

    def _check_database(self):
        """The database answers and its schema is at the revision this code expects."""
        try:
            current = migration.current(self._conf.database.connection)
        except sa.exc.SQLAlchemyError as exc:
            return upgradecheck.Result(
                FAILURE, f'The database of [database] connection cannot be reached: {exc}')
        head = migration.head()
        if current == head:
            return upgradecheck.Result(SUCCESS)
        found = f'at revision {current}' if current else 'not migrated'
        return upgradecheck.Result(
            FAILURE, f'The database is {found} while this code expects revision {head}: '
                     'run `cinderlike-manage db sync`.')

    def _check_periodic_interval(self):
        """Cinder warns on a non-default periodic_interval, which used to tune several tasks."""
        interval = self._conf.periodic_interval
        if interval == DEFAULT_PERIODIC_INTERVAL:
            return upgradecheck.Result(SUCCESS)
        return upgradecheck.Result(
            WARNING, f"Detected non-default value {interval} for the 'periodic_interval' "
                     f'option (default {DEFAULT_PERIODIC_INTERVAL}). Capability reporting has '
                     "its own options, 'backend_stats_polling_interval' and "
                     "'backup_driver_stats_polling_interval': review them and set them to "
                     'what you meant to tune.')

    def _check_enabled_backends(self):
        """cinderlike-volume runs one process per enabled backend: none means no volumes."""
        if self._conf.enabled_backends:
            return upgradecheck.Result(SUCCESS)
        return upgradecheck.Result(
            FAILURE, "'enabled_backends' is empty: cinderlike-volume would start no backend. "
                     'List the backend config sections it should run.')

    _upgrade_checks = (
        ('Database schema', _check_database),
        ('Periodic Interval Use', _check_periodic_interval),
        ('Enabled backends', _check_enabled_backends),
    )


def main(argv=None) -> int:
    conf = cl_conf.new_conf()
    return upgradecheck.main(conf, 'cinderlike', Checks(conf),
                             sys.argv[1:] if argv is None else argv)


if __name__ == '__main__':
    sys.exit(main())
