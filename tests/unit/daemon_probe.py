"""Run by test_conf_on_demand.py in a process of its own: `python -m tests.unit.daemon_probe
<daemon> <config file>` runs the daemon's cmd main() up to the launch of its service (for
the API, up to the app a gunicorn worker builds), then prints as JSON which of PROBED it has
imported, and the [healthcheck], [nova] or [service_user] values its code reads there."""

import contextlib
import importlib
import json
import sys
from unittest import mock

# NOTE(dialects): a daemon on SQLite (as on any database) imports no other database's
# SQLAlchemy package (db/dialects.py).
DIALECTS = ('sqlalchemy.dialects.mysql', 'sqlalchemy.dialects.postgresql')
PROBED = ('webob', 'jinja2', 'oslo_middleware', 'requests', 'keystoneauth1',
          'keystonemiddleware', 'keystoneclient', 'oslo_cache', *DIALECTS)


def started_conf(daemon: str, config: str):
    """The ConfigOpts *daemon*'s main() builds from *config*, its service not launched."""
    cmd = importlib.import_module(f'cinderlike.cmd.{daemon}')
    built = []

    def launch(conf, *args, **kwargs):
        built.append(conf)
        return mock.Mock(**{'wait.return_value': 0})

    if daemon == 'api':
        stop = mock.patch.object(cmd.APIServer, 'run',
                                 lambda server: built.append(server._conf) or server.load())
    elif daemon == 'volume':
        stop = mock.patch('oslo_service.service.ProcessLauncher', launch)
    else:
        stop = mock.patch('oslo_service.service.launch', launch)
    with stop, contextlib.suppress(SystemExit):
        cmd.main(['--config-file', config])
    return built[0]


def read_where_used(daemon: str, conf) -> dict:
    """What the daemon's code reads of the groups registered on demand, where it reads them."""
    if daemon == 'api':  # the app's healthcheck filter is built
        return {'healthcheck.check_timeout': conf.healthcheck.check_timeout}
    if daemon == 'volume':  # an in-use extend or an attached migration tells Nova
        from cinderlike.compute import nova
        nova.API(conf)
        return {'nova.region_name': conf.nova.region_name,
                'nova.interface': conf.nova.interface}
    if daemon == 'backup':  # the Swift driver's service token
        from cinderlike import service_auth
        service_auth.ServiceToken(conf)
        return {'service_user.send_service_user_token':
                conf.service_user.send_service_user_token}
    return {}


def main(daemon: str, config: str) -> None:
    conf = started_conf(daemon, config)
    imported = sorted(name for name in PROBED if name in sys.modules)
    print(json.dumps({'imported': imported, 'read': read_where_used(daemon, conf)}))


if __name__ == '__main__':
    main(*sys.argv[1:])
