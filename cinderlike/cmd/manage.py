"""cinderlike-manage: operator commands against the database, in cinder-manage's shape.

`cinderlike-manage <category> <action> [args]`; a category is a class in CATEGORIES whose
public methods are its actions, with arguments declared by @args (as cinder-manage does).
"""

import glob
import importlib.metadata
import inspect
import logging as std_logging
import os
import re
import sys
import time

import sqlalchemy as sa
from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import timeutils

from cinderlike import conf as cl_conf
from cinderlike import context, coordination, exception
from cinderlike.db import clusters, engine, maintenance, migration, pools, services
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from cinderlike.states import volumes as volume_states
from cinderlike.volume import rpcapi as volume_rpcapi

LOG = logging.getLogger(__name__)


def args(*names, **kwargs):
    """Declare one argparse argument of an action."""
    def decorate(func):
        func.__dict__.setdefault('args', []).insert(0, (names, kwargs))
        return func
    return decorate


class Command:
    """A category: its actions get the parsed configuration and, on first use, the database."""

    def __init__(self, conf: cfg.ConfigOpts):
        self._conf = conf
        self._database = None

    def _db(self) -> engine.Database:
        if self._database is None:
            self._database = engine.Database.from_conf(self._conf)
        return self._database


class DbCommands(Command):
    """Database schema."""

    @args('version', nargs='?', default=None, help='Database version')
    def sync(self, version=None):
        """Sync the database up to the most recent version (or to *version*)."""
        try:
            migration.upgrade(self._conf.database.connection, version)
        except exception.DBMigrationError as exc:
            print(f"Error during database migration: {exc.kwargs.get('reason', exc)}")
            return 1

    def version(self):
        """Print the current database version."""
        print(migration.current(self._conf.database.connection))

    @args('age_in_days', type=int, help='Purge deleted rows older than age in days')
    def purge(self, age_in_days):
        """Purge deleted rows older than a given age from cinderlike tables."""
        if age_in_days < 0:
            print('Must supply a positive value for age')
            return 1
        if age_in_days >= int(time.time()) / 86400:
            print('Maximum age is count of days since epoch.')
            return 1
        try:
            purged = maintenance.purge_deleted_rows(self._db(), age_in_days=age_in_days)
        except sa.exc.IntegrityError:
            LOG.exception('Purge of rows deleted over %d days ago failed', age_in_days)
            print('Purge command failed, check cinderlike-manage logs for more details.')
            return 1
        for table, count in purged:
            print(f'Deleted {count} rows from table={table}')

    # NOTE(online): each runs in bounded batches while services run: (found, done).
    online_migrations = (maintenance.service_uuids_online_data_migration,)

    @args('--max_count', metavar='<number>', dest='max_count', type=int, default=None,
          help='Maximum number of objects to consider.')
    def online_data_migrations(self, max_count=None):
        """Perform online data migrations for the release in batches.

        Exit code 1 while a bounded run (--max_count) left work, 0 once all is done.
        """
        if max_count is not None and max_count < 1:
            print('Must supply a positive value for max_count.')
            return 127
        if max_count is None:
            print('Running batches of 50 until complete.')
        totals = {}
        while True:
            done_now = 0
            for method in self.online_migrations:
                found, done = method(self._db(), max_count or 50)
                if found:
                    print(f'{found} rows matched query {method.__name__}, {done} migrated')
                total_found, total_done = totals.get(method.__name__, (0, 0))
                totals[method.__name__] = (max(total_found, found), total_done + done)
                done_now += done
            if max_count is not None or not done_now:
                break
        rows = [(name, *totals[name]) for name in sorted(totals)]
        width = max(len('Migration'), *(len(row[0]) for row in rows))
        line = f"+-{'-' * width}-+--------------+-----------+"
        print(line)
        print(f"| {'Migration'.ljust(width)} | Total Needed | Completed |")
        print(line)
        for name, found, done in rows:
            print(f'| {name.ljust(width)} | {found:>12} | {done:>9} |')
        print(line)
        return 1 if max_count is not None and done_now else 0


class ServiceCommands(Command):
    """Services registered by the scheduler, volume and backup daemons."""

    _FORMAT = '%-16s %-36s %-16s %-10s %-5s %-20s %-12s %-36s'

    def list(self):
        """Show a list of all cinderlike services."""
        print(self._FORMAT % ('Binary', 'Host', 'Zone', 'Status', 'State', 'Updated At',
                              'RPC Version', 'Cluster'))
        down_time = self._conf.service_down_time
        for svc in services.get_all(self._db()):
            state = ':-)' if services.is_up(svc, down_time=down_time) else 'XXX'
            status = 'disabled' if svc.disabled else 'enabled'
            updated_at = svc.updated_at and timeutils.normalize_time(svc.updated_at)
            print(self._FORMAT % (svc.binary, svc.host.partition('.')[0],
                                  svc.availability_zone, status, state, updated_at,
                                  svc.rpc_current_version, svc.cluster_name or ''))

    @args('binary', type=str, help='Service to delete from the host.')
    @args('host_name', type=str, help='Host from which to remove the service.')
    def remove(self, binary, host_name):
        """Completely removes a service."""
        rows = services.get_all(self._db(), host=host_name, binary=binary)
        if not rows:
            print(f'Host not found. Failed to remove {binary} on {host_name}.')
            return 2
        for row in rows:
            services.soft_delete(self._db(), row.id)
        print(f'Service {binary} on host {host_name} removed.')


class CapacityCommands(Command):
    """Capacity claimed on each pool against the volumes placed there."""

    _FORMAT = '%-48s %12s %12s %12s'

    @args('--fix', action='store_true', default=False,
          help="Set each drifting pool's claim to the sizes of its live volumes.")
    def check(self, fix=False):
        """Print every pool whose claim differs from the sum of its live volumes' sizes.

        Exit code 1 when drift was found and not fixed.
        """
        found = pools.fix_drift(self._db()) if fix else pools.drift(self._db())
        if not found:
            print('No capacity drift.')
            return 0
        print(self._FORMAT % ('Pool', 'Claimed GB', 'Volumes GB', 'Drift GB'))
        for item in found:
            print(self._FORMAT % (item.pool, f'{item.claimed_gb:g}', f'{item.volumes_gb:g}',
                                  f'{item.drift_gb:+g}'))
        if fix:
            print(f'Repaired {len(found)} pool(s).')
            return 0
        return 1


class ClusterCommands(Command):
    """Active-Active clusters of volume services."""

    _FORMAT = '%-36s %-16s %-10s %-5s %-20s %-7s %-12s %-20s'

    def list(self):
        """Show a list of all cinderlike clusters."""
        print(self._FORMAT % ('Name', 'Binary', 'Status', 'State', 'Heartbeat', 'Hosts',
                              'Down Hosts', 'Updated At'))
        for found in clusters.get_all(self._db(), down_time=self._conf.service_down_time):
            cluster = found.cluster
            print(self._FORMAT % (
                cluster.name, cluster.binary, 'disabled' if cluster.disabled else 'enabled',
                ':-)' if found.is_up else 'XXX',
                found.last_heartbeat and timeutils.normalize_time(found.last_heartbeat),
                found.num_hosts, found.num_down_hosts,
                cluster.updated_at and timeutils.normalize_time(cluster.updated_at)))

    @args('--recursive', action='store_true', default=False, help='Delete associated hosts.')
    @args('binary', type=str, help='Service to delete from the cluster.')
    @args('cluster_name', metavar='cluster-name', type=str, help='Cluster to delete.')
    def remove(self, recursive, binary, cluster_name):
        """Completely removes a cluster (refused while it has hosts, unless recursive)."""
        try:
            removed = clusters.remove(self._db(), name=cluster_name, binary=binary,
                                      recursive=recursive)
        except exception.ClusterNotFound:
            print(f"Couldn't remove cluster {cluster_name} because it doesn't exist.")
            return 2
        except exception.ClusterHasHosts:
            print(f"Couldn't remove cluster {cluster_name} because it still has hosts.")
            return 2
        message = f'Cluster {cluster_name} successfully removed.'
        if recursive:
            message += f' And {removed} services from the cluster were also removed.'
        print(message)

    @args('--full-rename', dest='partial', action='store_false', default=True,
          help='Do full cluster rename instead of just replacing provided current cluster '
               'name and preserving backend and/or pool info.')
    @args('current', help='Current cluster name.')
    @args('new', help='New cluster name.')
    def rename(self, partial, current, new):
        """Rename the cluster of the volumes in cluster *current* (after a backend rename,
        or moving to multi-backend)."""
        # NOTE(empty): as cinder-manage, an empty name means none.
        current, new = current or None, new or None
        count = clusters.rename_volumes(self._db(), current=current, new=new, partial=partial)
        if not count:
            print(f'No volumes exist in cluster {current}.')
            return 2
        print(f'Successfully renamed {count} volumes from cluster {current} to {new}')


class QuotaCommands(Command):
    """Quota usage against what the resource rows say."""

    def _check(self, project_id, fix):
        if project_id:
            projects = [project_id] if project_id in maintenance.quota_projects(self._db()) else []
            if not projects:
                print(f'Project id {project_id} has no quota usage. Nothing to do.')
        else:
            projects = maintenance.quota_projects(self._db())
        found = False
        for project in projects:
            print(f'Processing quota usage for project {project}')
            for drift in maintenance.check_project_usage(
                    self._db(), project_id=project, fix=fix,
                    no_snapshot_gb_quota=self._conf.no_snapshot_gb_quota):
                found = True
                print(f"\t{drift.resource}: invalid {drift.field} saved={drift.saved} "
                      f"actual={drift.actual}{' - fixed' if fix else ''}")
        print('Action successfully completed')
        return found

    @args('--project-id', default=None,
          help='The ID of the project where we want to check the quotas (defaults to all '
               'projects).')
    def check(self, project_id=None):
        """Check that quota usage and reservations match the rows (exit code 1 when not)."""
        return 1 if self._check(project_id, fix=False) else 0

    @args('--project-id', default=None,
          help='The ID of the project where we want to sync the quotas (defaults to all '
               'projects).')
    def sync(self, project_id=None):
        """Recount quota usage and reservations from the rows, one transaction per project."""
        self._check(project_id, fix=True)


class VolumeCommands(Command):
    """Volumes left in an odd state."""

    @args('volume_id', help='Volume ID to be deleted')
    def delete(self, volume_id):
        """Delete a volume, bypassing the check that it must be available."""
        volume = db_volumes.get_any(self._db(), volume_id=volume_id)
        if volume is None or volume.deleted:
            print(f'Volume {volume_id} could not be found.')
            return 2
        if not volume.host:
            print('Volume not yet assigned to host.')
            print('Deleting volume from database and skipping rpc.')
            db_volumes.destroy(self._db(), volume_id=volume_id)
            return 0
        if volume.status == volume_states.Status.IN_USE:
            print('Volume is in-use.')
            print('Detach volume from instance and then try again.')
            return 0
        # NOTE(deleting): the volume service deletes only a `deleting` volume.
        db_volumes.MACHINE.begin(self._db(), row_id=volume_id, action='force_delete')
        volume_rpcapi.VolumeAPI(self._conf).delete_volume(
            context.get_admin_context(), volume_id=volume_id, host=volume.host,
            cluster_name=volume.cluster_name)

    @args('--currenthost', required=True,
          help='Existing volume host name in the format host@backend#pool')
    @args('--newhost', required=True, help='New volume host name in the format host@backend#pool')
    def update_host(self, currenthost, newhost):
        """Modify the host name associated with a volume (a moved node or a renamed
        backend)."""
        count = maintenance.update_volume_host(self._db(), current=currenthost, new=newhost)
        print(f'Updated the host of {count} volumes from {currenthost} to {newhost}.')


class BackupCommands(Command):
    """Backups and the hosts that hold them."""

    def list(self):
        """List all backups (including ones in progress) and the host running each."""
        header = '%-32s\t%-32s\t%-32s\t%-24s\t%-24s\t%-12s\t%-12s\t%-12s\t%-12s'
        print(header % ('ID', 'User ID', 'Project ID', 'Host', 'Name', 'Container', 'Status',
                        'Size', 'Object Count'))
        row = '%-32s\t%-32s\t%-32s\t%-24s\t%-24s\t%-12s\t%-12s\t%-12d\t%-12d'
        for backup in maintenance.list_backups(self._db()):
            print(row % (backup.id, backup.user_id, backup.project_id, backup.host,
                         backup.display_name, backup.container, backup.status,
                         backup.size or 0, backup.object_count or 0))

    @args('--currenthost', required=True, help='Existing backup host name')
    @args('--newhost', required=True, help='New backup host name')
    def update_backup_host(self, currenthost, newhost):
        """Modify the host name associated with a backup (a moved backup node)."""
        count = maintenance.update_backup_host(self._db(), current=currenthost, new=newhost)
        print(f'Updated the host of {count} backups from {currenthost} to {newhost}.')


_UUID = re.compile('[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', re.I)


class UtilCommands(Command):
    """Generic utils."""

    def _lock_files(self) -> dict[tuple[str, str], list[str]]:
        """{(kind, id): paths} of the `cinder-<id>-...` lock files of a file:// tooz."""
        directory = coordination.file_lock_dir(self._conf)
        if directory is None:
            return {}
        found = {}
        for path in glob.glob(os.path.join(directory, 'cinder-*')):
            match = _UUID.search(os.path.basename(path))
            if match:
                kind = 'snapshot' if 'snapshot' in os.path.basename(path) else 'volume'
                found.setdefault((kind, match.group(0)), []).append(path)
        return found

    @args('--services-offline', dest='online', action='store_false', default=True,
          help='All locks can be deleted as cinderlike services are not running.')
    def clean_locks(self, online=True):
        """Clean the file locks of volumes and snapshots on this host.

        With services running (the default) only the locks of volumes and snapshots no longer
        in the database go. Distributed lock backends leave no files behind.
        """
        for (kind, resource_id), paths in sorted(self._lock_files().items()):
            if online and self._exists(kind, resource_id):
                continue
            for path in paths:
                try:
                    os.remove(path)
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    print(f'Failed to cleanup lock {path}: {exc}')
                    continue
                print(f'Removed lock {path}')

    def _exists(self, kind, resource_id) -> bool:
        try:
            if kind == 'snapshot':
                db_snapshots.get(self._db(), snapshot_id=resource_id)
            else:
                db_volumes.get(self._db(), volume_id=resource_id)
        except exception.NotFound:
            return False
        return True


class _Lines:
    """Collects what ConfigOpts.log_opt_values logs (secret values already masked)."""

    def __init__(self):
        self.lines = []

    def log(self, level, message, *values):
        self.lines.append(message % values if values else message)


class ConfigCommands(Command):
    """The options in effect, as the configuration files and defaults set them."""

    @args('param', nargs='?', default=None,
          help='Configuration parameter to display (default: %(default)s)')
    def list(self, param=None):
        """List every option as `name = value` (`group.name` outside [DEFAULT]; secrets as
        ****), or only the *param* named."""
        collected = _Lines()
        self._conf.log_opt_values(collected, std_logging.INFO)
        # NOTE(padding): oslo.config pads the names into columns; one space is kept.
        options = [tuple(part.strip() for part in line.split(' = ', 1))
                   for line in collected.lines if ' = ' in line]
        options = [(name, value) for name, value in options
                   if name not in ('category', 'config_file', 'config_dir')]
        param = param and param.strip()
        if param:
            options = [(name, value) for name, value in options if name == param]
            if not options:
                print(f'no such option {param}')
                return 2
        for name, value in options:
            print(f'{name} = {value}')


class VersionCommands(Command):
    """The code's version."""

    def list(self):
        """Print the version of cinderlike installed."""
        print(importlib.metadata.version('cinderlike'))


CATEGORIES = {
    'backup': BackupCommands,
    'capacity': CapacityCommands,
    'cluster': ClusterCommands,
    'config': ConfigCommands,
    'db': DbCommands,
    'quota': QuotaCommands,
    'service': ServiceCommands,
    'util': UtilCommands,
    'version': VersionCommands,
    'volume': VolumeCommands,
}


def _actions(command: Command):
    return [(name, method) for name, method in inspect.getmembers(command, inspect.ismethod)
            if not name.startswith('_')]


def _parser_builder(conf):
    def add_command_parsers(subparsers):
        for category in sorted(CATEGORIES):
            parser = subparsers.add_parser(category, help=CATEGORIES[category].__doc__)
            actions = parser.add_subparsers(dest='action')
            for name, method in _actions(CATEGORIES[category](conf)):
                action = actions.add_parser(name, help=method.__doc__)
                for names, kwargs in getattr(method, 'args', []):
                    action.add_argument(*names, **kwargs)
                action.set_defaults(action_fn=method)
    return add_command_parsers


def _action_kwargs(conf, method) -> dict:
    kwargs = {}
    for names, options in getattr(method, 'args', []):
        name = options.get('dest') or names[0].lstrip('-').replace('-', '_')
        kwargs[name] = getattr(conf.category, name)
    return kwargs


def _usage(script_name) -> int:
    print(f'{script_name} category action [<args>]')
    print('Available categories:')
    for category in CATEGORIES:
        print(f'\t{category}')
    return 2


def main(argv=None) -> int:
    """Parse options and run the category's action; its return value is the exit code."""
    argv = sys.argv if argv is None else argv
    if len(argv) < 2:
        return _usage(argv[0])
    conf = cl_conf.new_conf()
    # NOTE(output): logs go to stderr unless a log file is set, so stdout carries only what
    # the command prints (`db version` in a script reads just the revision).
    conf.set_default('use_stderr', True)
    conf.register_cli_opt(cfg.SubCommandOpt('category', title='Command categories',
                                            handler=_parser_builder(conf)))
    try:
        conf(argv[1:], project='cinderlike')
    except cfg.ConfigDirNotFoundError as exc:
        print(f'Invalid directory: {exc}')
        return 2
    except cfg.ConfigFilesNotFoundError as exc:
        print(f'Failed to read configuration file(s): {exc.config_files}')
        return 2
    logging.setup(conf, 'cinderlike')
    method = getattr(conf.category, 'action_fn', None)
    if method is None:
        return _usage(argv[0])
    return method(**_action_kwargs(conf, method)) or 0


if __name__ == '__main__':
    sys.exit(main())
