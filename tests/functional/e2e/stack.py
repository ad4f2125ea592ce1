"""A four-daemon stack for end-to-end tests: config file, daemons as subprocesses, API client.

Each daemon runs from the .venv console scripts in its own process group (so a test can kill
a whole daemon, parent and children, with one signal) and logs to its own file.
"""

import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from cinderlike.conf import api as api_conf
from tests.fixtures.database import fresh_database

BIN = pathlib.Path(sys.executable).parent
PROJECT = 'e2e-project'
_STARTED_RE = re.compile(r'^\S+ \S+ (\d+) INFO cinderlike\.service .*'
                         r'Started (\S+) service on (\S+)$', re.M)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def wait_for(predicate, *, timeout, what):
    """Poll predicate() until it returns something true; fail with *what* after *timeout* s."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out after {timeout}s waiting for {what}')
        time.sleep(0.2)


def get_json(url, *, token):
    """(status, JSON body) of GET *url* with *token*, or None while nothing answers."""
    request = urllib.request.Request(url, headers={'X-Auth-Token': token})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except OSError:
        return None


class Daemon:
    """One running console script."""

    def __init__(self, name, proc, log_path):
        self.name = name
        self.proc = proc
        self.log_path = log_path

    def log(self) -> str:
        return self.log_path.read_text(errors='replace')

    def started_services(self) -> list[tuple[int, str, str]]:
        """(pid, binary, host) of every 'Started <binary> service on <host>' logged so far."""
        return [(int(pid), binary, host) for pid, binary, host in _STARTED_RE.findall(self.log())]

    def stop(self, timeout=60) -> int:
        """SIGTERM, then the exit code (SIGKILL of the group if it does not stop)."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill_group()
            raise AssertionError(f'{self.name} ignored SIGTERM for {timeout}s:\n'
                                 f'{self.log()[-3000:]}') from None

    def kill_group(self):
        """kill -9 of the daemon's process group: the parent and all its workers at once."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(30)


class NoAuthAdmin:
    """The noauth admin of PROJECT: its `user:project` token (auth_strategy = noauth)."""

    project_id = PROJECT

    def token(self) -> str:
        return f'admin:{PROJECT}'


def _rabbitmqctl(*args, ctl=None) -> bool:
    """rabbitmqctl *args* on the machine's node, or through *ctl* (a private node's)."""
    if ctl is not None:
        return ctl(*args).returncode == 0
    return subprocess.run(['rabbitmqctl', *args], capture_output=True, timeout=60).returncode == 0


class Stack:
    """Config and daemons of one end-to-end run, on its own database and RabbitMQ exchange."""

    def __init__(self, workdir: pathlib.Path, *, db_url, transport_url, backends=('b1', 'b2'),
                 report_interval=1, service_down_time=4, rabbitmqctl=None):
        self.workdir = workdir
        self.db_url = db_url
        self.backends = list(backends)
        self.host = f'e2e-{uuid.uuid4().hex[:8]}'
        self.api_port = free_port()
        self.report_interval = report_interval
        self.service_down_time = service_down_time
        self.config_path = workdir / 'cinderlike.conf'
        self.daemons: dict[str, Daemon] = {}
        # who the helpers below call the API as: NoAuthAdmin, or a Keystone user (use_keystone)
        self.identity = NoAuthAdmin()
        self.keystone = None
        self._vhost = None
        # rabbitmqctl of a private node (tests/fixtures/private_servers.py) for the vhost
        self._rabbitmqctl = rabbitmqctl
        self._sections = self._default_sections(self._isolated(transport_url))
        (workdir / 'state').mkdir(exist_ok=True)
        self._write_config()

    def _isolated(self, transport_url: str) -> str:
        """*transport_url* on a RabbitMQ vhost of this run's own, when rabbitmqctl is at hand.

        NOTE(isolation): oslo.messaging names queues after topics alone (the exchange only
        routes), so runs sharing a vhost share the `cinder-scheduler` queue and every fanout,
        and one run's scheduler would take another's casts.
        """
        if not transport_url.startswith('rabbit://') or shutil.which('rabbitmqctl') is None:
            return transport_url
        parts = urllib.parse.urlsplit(transport_url)
        vhost = f'cl-e2e-{uuid.uuid4().hex[:12]}'
        ctl = self._rabbitmqctl
        if not (_rabbitmqctl('add_vhost', vhost, ctl=ctl) and _rabbitmqctl(
                'set_permissions', '-p', vhost, parts.username or 'guest', '.*', '.*', '.*',
                ctl=ctl)):
            return transport_url
        self._vhost = vhost
        return urllib.parse.urlunsplit(parts._replace(path='/' + vhost))

    def _default_sections(self, transport_url):
        sections = {
            'DEFAULT': {
                'host': self.host,
                'transport_url': transport_url,
                # a fresh exchange per run as well (see _isolated for the queues).
                'control_exchange': f'cl-e2e-{uuid.uuid4().hex[:12]}',
                'report_interval': self.report_interval,
                'service_down_time': self.service_down_time,
                'periodic_interval': 1,
                'periodic_fuzzy_delay': 0,
                'enabled_backends': ','.join(self.backends),
                'state_path': self.workdir / 'state',
                'auth_strategy': 'noauth',
                # noauth's PROJECT is no Keystone hex id
                'project_id_regex': api_conf.ANY_PROJECT_ID_REGEX,
                'osapi_volume_listen': '127.0.0.1',
                'osapi_volume_listen_port': self.api_port,
                'osapi_volume_workers': 1,
                'graceful_shutdown_timeout': 20,
                # a call that reaches no server yet (start-up) fails in 10 s, not 60.
                'rpc_response_timeout': 10,
                # backups to $state_path/backup (Cinder's default, swift, needs a Swift).
                'backup_driver': 'posix',
            },
            'database': {'connection': self.db_url},
        }
        for backend in self.backends:
            sections[backend] = {'volume_driver': 'fake', 'volume_backend_name': backend,
                                 'backend_stats_polling_interval': 3}
        return sections

    def _write_config(self):
        lines = []
        for name, options in self._sections.items():
            lines.append(f'[{name}]')
            lines += [f'{key} = {value}' for key, value in options.items()]
            lines.append('')
        self.config_path.write_text('\n'.join(lines))

    @property
    def api_url(self) -> str:
        return f'http://127.0.0.1:{self.api_port}'

    def use_keystone(self, keystone) -> None:
        """auth_strategy = keystone, auth_token validating with *keystone*'s service user
        (tests/fixtures/keystone.py); the helpers below then call as its admin."""
        self.update_config(auth_strategy='keystone')
        self.update_config('keystone_authtoken', **keystone.authtoken_options())
        self.keystone = keystone
        self.identity = keystone.identity(keystone.admin)

    def update_config(self, section='DEFAULT', **options):
        """Change options in the config file (then SIGHUP a daemon to apply them)."""
        self._sections.setdefault(section, {}).update(options)
        self._write_config()

    def run(self, script, *args) -> subprocess.CompletedProcess:
        """Run a one-shot command (cinderlike-manage ...) against this stack's config."""
        return subprocess.run([str(BIN / script), '--config-file', str(self.config_path), *args],
                              capture_output=True, text=True, timeout=300, check=True)

    def capacity_check(self) -> str:
        """`cinderlike-manage capacity check` output; raises when it reports drift (exit 1)."""
        return self.run('cinderlike-manage', 'capacity', 'check').stdout

    def start(self, name, *, label=None, host=None) -> Daemon:
        """Start cinderlike-<name> in its own process group, kept as daemons[*label or name*].

        *host* overrides [DEFAULT] host for this daemon alone (a second scheduler must not
        share the first one's services row).
        """
        label = label or name
        log_path = self.workdir / f'{label}.{len(self.daemons)}.log'
        args = [str(BIN / f'cinderlike-{name}'), '--config-file', str(self.config_path)]
        if host is not None:
            # NOTE(config): a later --config-file overrides the options it sets.
            override = self.workdir / f'{label}.conf'
            override.write_text(f'[DEFAULT]\nhost = {host}\n')
            args += ['--config-file', str(override)]
        # NOTE(unbuffered): a daemon killed with kill -9 keeps the log lines it wrote last.
        env = {**os.environ, 'PYTHONUNBUFFERED': '1'}
        with open(log_path, 'wb') as log:
            proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True, env=env)
        self.daemons[label] = Daemon(label, proc, log_path)
        return self.daemons[label]

    def start_schedulers(self, count) -> list[Daemon]:
        """*count* schedulers: `scheduler` on the stack's host, then `scheduler-2`... on
        hosts of their own."""
        return [self.start('scheduler') if index == 1 else
                self.start('scheduler', label=f'scheduler-{index}',
                           host=f'{self.host}-s{index}')
                for index in range(1, count + 1)]

    def close(self):
        """Kill whatever a test left running; drop this run's vhost."""
        for daemon in self.daemons.values():
            if daemon.proc.poll() is None:
                daemon.kill_group()
        if self._vhost:
            _rabbitmqctl('delete_vhost', self._vhost, ctl=self._rabbitmqctl)
            self._vhost = None

    # -- the API ----------------------------------------------------------------------------

    def get(self, path):
        """(status, JSON body) of GET *path* as the admin, or None while nothing answers."""
        return get_json(f'{self.api_url}{path}', token=self.identity.token())

    def request(self, method, path, body=None, *, version=None):
        """(status, JSON body or None) of *method* on *path* as an admin; errors included."""
        headers = {'X-Auth-Token': self.identity.token(), 'Content-Type': 'application/json'}
        if version:
            headers['OpenStack-API-Version'] = f'volume {version}'
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f'{self.api_url}{path}', data=data,
                                         headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            return exc.code, json.loads(raw) if raw else None

    def ok(self, method, path, body=None, *, expect, version=None):
        """The JSON answer of *method* on *path*; AssertionError unless its status is *expect*."""
        status, answer = self.request(method, path, body, version=version)
        if status != expect:
            raise AssertionError(f'{method} {path} -> {status} {answer}')
        return answer

    def wait_for_api(self, timeout=60):
        wait_for(lambda: (self.get('/v3/') or (None,))[0] == 200, timeout=timeout,
                 what='the API to answer GET /v3/')

    def pool_names(self) -> set[str]:
        """Names of the pools the scheduler knows (GET /scheduler-stats/get_pools).

        Empty while no scheduler answers yet: a call cast before the scheduler's queue exists
        is dropped by RabbitMQ and the API waits `rpc_response_timeout` for it.
        """
        try:
            status, body = self.request(
                'GET', f'/v3/{self.identity.project_id}/scheduler-stats/get_pools')
        except TimeoutError:
            return set()
        return {pool['name'] for pool in body['pools']} if status == 200 else set()

    def start_all(self, timeout=90):
        """Start the four daemons; return once the API answers, every service has registered
        (a backup or import needs a live backup service) and the scheduler knows every
        backend's pool (named after its backend), so volumes can be placed."""
        for name in ('scheduler', 'volume', 'backup', 'api'):
            self.start(name)
        self.wait_for_api(timeout=timeout)
        expected = self.expected_services()
        wait_for(lambda: expected <= set(self.services()), timeout=timeout,
                 what=f'{sorted(expected)} to register')
        wanted = {f'{self.host}@{backend}#{backend}' for backend in self.backends}
        wait_for(lambda: wanted <= self.pool_names(), timeout=timeout,
                 what=f'the scheduler to know pools {sorted(wanted)}')

    def services(self) -> dict[tuple[str, str], dict]:
        """os-services rows keyed by (binary, host)."""
        status, body = self.get(f'/v3/{self.identity.project_id}/os-services') or (None, None)
        if status != 200:
            return {}
        return {(s['binary'], s['host']): s for s in body['services']}

    def expected_services(self) -> set[tuple[str, str]]:
        volumes = {('cinder-volume', f'{self.host}@{b}') for b in self.backends}
        return {('cinder-scheduler', self.host), ('cinder-backup', self.host)} | volumes


@contextlib.contextmanager
def deployed(workdir, *, server_url, transport_url, configure=None, start=None, timeout=90,
             **stack_options):
    """A Stack on a fresh migrated database, started (`start(stack)`, by default all four
    daemons) and closed after; whatever ran meanwhile, no pool's claim may have drifted.

    *configure(stack)* edits the configuration before anything starts; *stack_options* go to
    Stack (backends=...).
    """
    with fresh_database(server_url) as db_url:
        stack = Stack(workdir, db_url=db_url, transport_url=transport_url, **stack_options)
        stack.update_config(scheduler_driver_init_wait_time=5)
        if configure is not None:
            configure(stack)
        stack.run('cinderlike-manage', 'db', 'sync')
        try:
            if start is None:
                stack.start_all(timeout=timeout)
            else:
                start(stack)
            yield stack
            assert 'No capacity drift.' in stack.capacity_check()
        except BaseException:
            # NOTE(diagnosis): CI keeps only pytest's report; the daemons' last words go
            # into its captured output.
            for daemon in stack.daemons.values():
                print(f'--- {daemon.name}: the end of {daemon.log_path}\n{daemon.log()[-6000:]}')
            raise
        finally:
            stack.close()
