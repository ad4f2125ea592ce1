"""Run pytest for make and tox; "no tests ran" passes only when real-service tests were set aside.

pytest exits 5 when nothing is left to run. That is a real failure (a wrong path, a broken
collection) except when every selected test needs a PostgreSQL, MariaDB, RabbitMQ, Redis,
tgtd or Swift this machine lacks: tests/conftest.py deselects those and lists them in the summary.
"""

import sys

import pytest

REAL_SERVICE_MARKERS = ('postgresql', 'mysql', 'rabbit', 'redis', 'tgt', 'swift')


class _RealServiceDeselections:
    """Counts the tests deselected that carry a real-service marker."""

    def __init__(self):
        self.count = 0

    def pytest_deselected(self, items):
        self.count += sum(1 for item in items
                          if any(item.get_closest_marker(m) for m in REAL_SERVICE_MARKERS))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        # NOTE(xdist): workers deselect (tests/conftest.py) and report what they set aside.
        self.count = max(self.count, sum(
            getattr(node, 'workeroutput', {}).get('not_run', {}).values()))


def main(argv: list[str]) -> int:
    deselections = _RealServiceDeselections()
    code = pytest.main(argv, plugins=[deselections])
    if code == pytest.ExitCode.NO_TESTS_COLLECTED and deselections.count:
        print(f'run_pytest: no test left to run: the {deselections.count} selected tests all '
              'need a real service that is not available here (see the summary above)')
        return 0
    return int(code)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
