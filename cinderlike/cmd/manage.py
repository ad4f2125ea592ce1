"""cinderlike-manage: operator commands against the database, in cinder-manage's shape.

`cinderlike-manage <category> <action> [args]`; a category is a class in CATEGORIES whose
public methods are its actions, with arguments declared by @args (as cinder-manage does).
"""

import inspect
import sys

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import timeutils

from cinderlike import conf as cl_conf
from cinderlike import exception
from cinderlike.db import clusters, engine, migration, pools, services


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


CATEGORIES = {
    'capacity': CapacityCommands,
    'cluster': ClusterCommands,
    'db': DbCommands,
    'service': ServiceCommands,
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
