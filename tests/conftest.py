"""Test-run wiring: real-service markers become required (CI) or reported-and-deselected."""

import shutil
import warnings

import pytest

from tests.fixtures import services, swift, tgt

warnings.filterwarnings('ignore', module='eventlet')
warnings.filterwarnings('ignore', message='.*[Ee]ventlet.*')

_NOT_RUN = {}
NOT_INSTALLED = {
    'qemu_img': 'qemu-img not installed (apt-get install qemu-utils)',
    'tgt': 'tgt, qemu-block-extra or libiscsi-bin not installed '
           '(apt-get install tgt qemu-utils qemu-block-extra libiscsi-bin)',
    'swift': f'OpenStack Swift not installed (apt-get install {" ".join(swift.PACKAGES)})',
}


def pytest_collection_modifyitems(config, items):
    """Tests marked postgresql/mysql/rabbit/redis need that server, qemu_img that tool, tgt a
    user-space tgtd and qemu's iSCSI client.

    Required (CINDERLIKE_REQUIRE_REAL_SERVICES=1): kept, and their fixtures fail loudly when
    the server is missing. Not required: deselected when the server is not configured or not
    reachable, and listed in the summary.
    """
    if services.required():
        return
    available = {kind: services.reachable(kind) for kind in services.ENV}
    # The file driver's tests need qemu-img (Debian's qemu-utils); .ci/run installs it.
    available['qemu_img'] = shutil.which('qemu-img') is not None
    # The iSCSI export tests start their own tgtd (Debian's tgt, qemu-block-extra,
    # libiscsi-bin).
    available['tgt'] = not tgt.missing()
    # The Swift backup tests start their own Swift (Debian's swift packages, memcached).
    available['swift'] = not swift.missing()
    keep, dropped = [], []
    for item in items:
        missing = [k for k in available if item.get_closest_marker(k) and not available[k]]
        if missing:
            dropped.append(item)
            for kind in missing:
                _NOT_RUN.setdefault(kind, 0)
                _NOT_RUN[kind] += 1
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
    # NOTE(xdist): a worker collects and deselects; its counts reach the controller, which
    # prints the summary, through workeroutput (pytest_testnodedown below).
    if hasattr(config, 'workeroutput'):
        config.workeroutput['not_run'] = dict(_NOT_RUN)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """Under xdist: every worker collected the same tests, so any one's counts are the run's."""
    for kind, count in getattr(node, 'workeroutput', {}).get('not_run', {}).items():
        _NOT_RUN[kind] = max(_NOT_RUN.get(kind, 0), count)


def pytest_terminal_summary(terminalreporter):
    if not _NOT_RUN:
        return
    terminalreporter.section('real-service suites that did NOT run')
    for kind, count in sorted(_NOT_RUN.items()):
        why = (f'{services.ENV[kind]} unset or server unreachable' if kind in services.ENV
               else NOT_INSTALLED[kind])
        terminalreporter.write_line(f'{kind}: {count} tests not run ({why})')


def _server_url(kind):
    url = services.url_of(kind)
    if not url or not services.reachable(kind):
        pytest.fail(f'{kind} is required but {services.ENV[kind]}={url!r} is not reachable')
    return url


@pytest.fixture(scope='session')
def postgresql_server_url():
    return _server_url('postgresql')


@pytest.fixture(scope='session')
def mysql_server_url():
    return _server_url('mysql')


@pytest.fixture(scope='session')
def rabbit_url():
    return _server_url('rabbit')


@pytest.fixture(scope='session')
def redis_url():
    return _server_url('redis')


# NOTE(xdist): these packages share one stack per run through package-scoped fixtures. Under
# `--dist loadfile` their files went to both workers, interleaved with other files, and pytest
# tore the stack down and started it again each time a worker came back to the package (about
# 20 s each). Each is one work unit, so one worker runs it whole and starts its stack once.
SHARED_STACK_PACKAGES = ('tests/functional/clients/', 'tests/functional/keystone/')


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getoption('dist') != 'loadfile':
        return None
    from xdist.scheduler import LoadFileScheduling

    class _SharedStackScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return next((p for p in SHARED_STACK_PACKAGES if nodeid.startswith(p)),
                        super()._split_scope(nodeid))

    return _SharedStackScheduling(config, log)
