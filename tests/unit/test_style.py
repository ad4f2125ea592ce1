"""tools/check_style.py: the size cap and the legacy-query ban, on small trees made here."""

import importlib.util
import pathlib

import pytest

_SCRIPT = pathlib.Path(__file__).resolve().parents[2] / 'tools' / 'check_style.py'
_spec = importlib.util.spec_from_file_location('check_style', _SCRIPT)
check_style = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_style)


def _write(root, relpath, text):
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def tree(tmp_path):
    _write(tmp_path, 'cinderlike/__init__.py', '')
    _write(tmp_path, 'tests/__init__.py', '')
    return tmp_path


def test_module_at_the_limit_passes_and_one_more_line_fails(tree):
    _write(tree, 'cinderlike/ok.py', 'x = 1\n' * 1000)
    _write(tree, 'tests/unit/test_big.py', 'x = 1\n' * 1001)
    assert check_style.oversized(tree) == [
        'tests/unit/test_big.py: 1001 lines (limit 1000); split it']


def test_migrations_are_exempt_from_the_size_cap(tree):
    _write(tree, 'cinderlike/db/migrations/versions/0001_initial.py', 'x = 1\n' * 1500)
    assert check_style.oversized(tree) == []


@pytest.mark.parametrize('check, package_source, tests_source, problem', [
    (check_style.legacy_queries,
     '"""Never call session.query(Model)."""\n'
     '# session.query(x) in a comment is fine\n'
     'def get(session, model):\n'
     '    return session.query(model).all()\n',
     'def test(s):\n    s.query(1)\n',
     'cinderlike/db/bad.py:4: legacy ORM .query()'),
    (check_style.unindexed_live_rows,
     'import sqlalchemy as sa\n\n'
     'def live(model):\n'
     '    return [model.deleted.is_(False), model.deleted == sa.false(),\n'
     '            model.frozen.is_(False), model.deleted.is_(True)]\n',
     'def test(m):\n    m.deleted.is_(False)\n',
     'cinderlike/db/bad.py:4: deleted.is_(False)'),
])
def test_a_forbidden_call_is_refused_in_the_package_only(tree, check, package_source,
                                                          tests_source, problem):
    _write(tree, 'cinderlike/db/bad.py', package_source)
    _write(tree, 'tests/test_x.py', tests_source)
    problems = check(tree)
    assert len(problems) == 1
    assert problems[0].startswith(problem)


def test_select_style_passes(tree):
    _write(tree, 'cinderlike/db/good.py',
           'import sqlalchemy as sa\n\n'
           'def get(session, model):\n'
           '    return session.execute(sa.select(model)).scalars().all()\n')
    assert check_style.legacy_queries(tree) == []


def test_main_prints_problems_and_exits_nonzero(tree, capsys):
    _write(tree, 'cinderlike/db/bad.py', 'def f(s):\n    return s.query(1)\n')
    assert check_style.main([str(tree)]) == 1
    assert 'cinderlike/db/bad.py:2' in capsys.readouterr().out


def test_main_exits_zero_on_a_clean_tree(tree, capsys):
    assert check_style.main([str(tree)]) == 0
    assert capsys.readouterr().out == ''


@pytest.mark.parametrize('module, line, expected', [
    ('cinderlike/volume/periodics.py', 'from cinderlike.scheduler import backend_state',
     'cinderlike/volume/periodics.py:1: cinderlike.volume must not import '
     'cinderlike.scheduler.backend_state (only cinderlike.scheduler.rpcapi, '
     'cinderlike.volume.rpcapi, cinderlike.backup.rpcapi)'),
    ('cinderlike/api/operations/x.py', 'from cinderlike.volume import manager',
     'cinderlike/api/operations/x.py:1: cinderlike.api must not import '
     'cinderlike.volume.manager (only cinderlike.scheduler.rpcapi, cinderlike.volume.rpcapi, '
     'cinderlike.backup.rpcapi)'),
    ('cinderlike/db/x.py', 'from cinderlike import quota',
     'cinderlike/db/x.py:1: cinderlike.db may import only cinderlike.db, cinderlike.states, '
     'cinderlike.exception, cinderlike.capacity, not cinderlike.quota'),
    ('cinderlike/drivers/volume/x.py', 'import cinderlike.db.volumes',
     'cinderlike/drivers/volume/x.py:1: cinderlike.drivers must not import '
     'cinderlike.db.volumes'),
    ('cinderlike/scheduler/x.py', 'from cinderlike.api import faults',
     'cinderlike/scheduler/x.py:1: cinderlike.scheduler must not import '
     'cinderlike.api.faults'),
    ('cinderlike/api/operations/x.py', 'from cinderlike import connector',
     'cinderlike/api/operations/x.py:1: cinderlike.api must not import cinderlike.connector'),
    ('cinderlike/connector/x.py', 'from cinderlike.volume import manager',
     'cinderlike/connector/x.py:1: cinderlike.connector may import only '
     'cinderlike.connector, cinderlike.exception, not cinderlike.volume.manager'),
])
def test_import_rules_of_the_architecture_are_enforced(tree, module, line, expected):
    for package in ('scheduler', 'volume', 'api', 'db', 'drivers', 'drivers/volume',
                    'api/operations', 'connector'):
        _write(tree, f'cinderlike/{package}/__init__.py', '')
    for name in ('scheduler/backend_state', 'scheduler/rpcapi', 'volume/manager', 'quota',
                 'db/volumes', 'api/faults'):
        _write(tree, f'cinderlike/{name}.py', '')
    _write(tree, module, line + '\n')
    assert check_style.import_violations(tree) == [expected]


def test_rpcapi_clients_and_own_modules_are_allowed(tree):
    for name in ('scheduler/__init__', 'scheduler/rpcapi', 'scheduler/capacity',
                 'volume/__init__', 'volume/rpcapi', 'volume/delete'):
        _write(tree, f'cinderlike/{name}.py', '')
    _write(tree, 'cinderlike/volume/manager.py',
           'from cinderlike.scheduler import rpcapi\nfrom cinderlike.volume import delete\n')
    _write(tree, 'cinderlike/scheduler/manager.py', 'from cinderlike.volume import rpcapi\n')
    assert check_style.import_violations(tree) == []


def test_the_package_keeps_the_import_rules():
    assert check_style.import_violations(_SCRIPT.parents[1]) == []
