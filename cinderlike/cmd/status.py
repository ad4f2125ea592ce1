"""cinderlike-status: `cinderlike-status upgrade check`, as cinder-status (oslo.upgradecheck).

Exit codes: 0 every check passed, 1 a warning to review, 2 a failure that blocks an
upgrade, 255 a check that crashed.
"""

import os
import sys

import sqlalchemy as sa
from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_upgradecheck import upgradecheck

from cinderlike import conf as cl_conf
from cinderlike import exception
from cinderlike.conf import volume as volume_conf
from cinderlike.db import engine, maintenance, migration
from cinderlike.drivers import volume as volume_drivers

SUCCESS = upgradecheck.Code.SUCCESS
WARNING = upgradecheck.Code.WARNING
FAILURE = upgradecheck.Code.FAILURE

DEFAULT_PERIODIC_INTERVAL = 60
DEFAULT_POLICY_FILE = 'policy.yaml'
# Cinder's REMOVED_DRVRS: a volume_driver naming one of these has no code any more.
REMOVED_DRIVERS = ('coprhd', 'drbdmanage', 'disco', 'hgst', 'hpe_lefthand', 'sheepdog', 'zfssa',
                   'windows')


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

    def _check_backup_module(self):
        """Cinder's rule: a backup_driver given as a module path (all lower case) is refused."""
        try:
            backup_driver = self._conf.backup_driver
        except cfg.NoSuchOptError:
            return upgradecheck.Result(SUCCESS)
        if backup_driver and '.' in backup_driver and backup_driver == backup_driver.lower():
            return upgradecheck.Result(
                FAILURE, 'Backup driver configuration requires the full path to the driver, '
                         'but current setting is using only the module path.')
        return upgradecheck.Result(SUCCESS)

    def _check_policy_file(self):
        """A policy.json left beside the config while policy.yaml is the default (Cinder's)."""
        policy_opts.set_defaults(self._conf)
        config_file = self._conf.find_file('cinderlike.conf') or (
            self._conf.config_file[-1] if self._conf.config_file else None)
        if not config_file:
            return upgradecheck.Result(
                WARNING, 'Cannot locate your cinderlike configuration directory. Please re-run '
                         'using the --config-dir <dirname> option.')
        config_dir = os.path.dirname(os.path.abspath(config_file))
        policy_file = self._conf.oslo_policy.policy_file
        if policy_file == DEFAULT_POLICY_FILE:
            if os.path.exists(os.path.join(config_dir, 'policy.json')):
                return upgradecheck.Result(
                    WARNING, 'policy.json file is present. Make sure any changes from the '
                             'default policies are present in a policy.yaml file instead. If '
                             'you really intend to use a policy.json file, make sure that its '
                             "absolute path is set as the value of the 'policy_file' "
                             'configuration option in the [oslo_policy] section of your '
                             'cinderlike.conf file.')
            return upgradecheck.Result(SUCCESS)
        path = os.path.join(config_dir, policy_file)
        if not os.path.exists(path):
            return upgradecheck.Result(
                WARNING, f"Configured policy file '{path}' does not exist. This may be "
                         'expected, but default policies will be used until any desired '
                         'overrides are added to the configured file.')
        return upgradecheck.Result(SUCCESS)

    def _check_removed_drivers(self):
        """Every enabled backend's volume_driver exists (Cinder's list of removed ones, and
        any name cinderlike has no driver for)."""
        missing = []
        for backend in filter(None, self._conf.enabled_backends or []):
            driver = volume_conf.register_backend(self._conf, backend).volume_driver
            try:
                volume_drivers.driver_class(driver)
            except exception.VolumeDriverNotFound:
                missing.append(driver)
        removed = [d for d in missing if any(name in (d or '') for name in REMOVED_DRIVERS)]
        if len(removed) == 1:
            return upgradecheck.Result(
                FAILURE, f'Found driver {removed[0]} configured in your cinderlike.conf file. '
                         'This driver has been removed and all data should be migrated off of '
                         'this backend before upgrading.')
        if missing:
            listed = ',\n'.join(str(d) for d in missing)
            return upgradecheck.Result(
                FAILURE, 'The following drivers, which no longer exist, were found configured '
                         f'in your cinderlike.conf file:\n{listed}.\nThese drivers have been '
                         'removed and all data should be migrated off of the associated '
                         'backends before upgrading.')
        return upgradecheck.Result(SUCCESS)

    def _check_service_uuid(self):
        """Services and placed volumes carry a service uuid (online data migrations)."""
        try:
            database = engine.Database(self._conf.database.connection)
            found = maintenance.services_without_uuid(database)
            volumes = maintenance.placed_volumes_without_service_uuid(database)
            database.dispose()
        except sa.exc.SQLAlchemyError as exc:
            return upgradecheck.Result(FAILURE, f'The database cannot be read: {exc}')
        if found or volumes:
            return upgradecheck.Result(
                FAILURE, 'Services and volumes must have a service UUID. Please fix this issue '
                         'by running `cinderlike-manage db online_data_migrations`.')
        return upgradecheck.Result(SUCCESS)

    _upgrade_checks = (
        ('Database schema', _check_database),
        ('Backup Driver Path', _check_backup_module),
        ('Use of Policy File', _check_policy_file),
        ('Removed Drivers', _check_removed_drivers),
        ('Periodic Interval Use', _check_periodic_interval),
        ('Service UUIDs', _check_service_uuid),
        ('Enabled backends', _check_enabled_backends),
    )


def main(argv=None) -> int:
    conf = cl_conf.new_conf()
    return upgradecheck.main(conf, 'cinderlike', Checks(conf),
                             sys.argv[1:] if argv is None else argv)


if __name__ == '__main__':
    sys.exit(main())
