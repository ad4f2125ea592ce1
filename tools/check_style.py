"""Project rules ruff does not know, run by `tox -e pep8` and `make pep8`.

- No module under cinderlike/ or tests/ may pass 1,000 lines (alembic migrations are exempt).
- No legacy ORM `.query(` call under cinderlike/: SQLAlchemy 2 `sa.select`/`sa.update` only.
- No `deleted.is_(False)` under cinderlike/: `deleted == sa.false()`, which MariaDB's indexes
  serve (it scans the whole index for `deleted IS false`).
- ARCHITECTURE.md's "who may import whom" (IMPORT_RULES below).
"""

import argparse
import ast
import pathlib
import sys

MAX_LINES = 1000
SIZE_CHECKED = ('cinderlike', 'tests')
QUERY_CHECKED = ('cinderlike',)


def _is_migration(path: pathlib.Path) -> bool:
    return 'migrations' in path.parts


def _modules(root: pathlib.Path, tops):
    for top in tops:
        yield from sorted((root / top).rglob('*.py'))


def oversized(root: pathlib.Path, *, limit: int = MAX_LINES) -> list[str]:
    """Modules longer than *limit* lines, as `path: N lines` messages."""
    problems = []
    for path in _modules(root, SIZE_CHECKED):
        if _is_migration(path):
            continue
        with path.open('rb') as handle:
            count = sum(1 for _ in handle)
        if count > limit:
            problems.append(f'{path.relative_to(root)}: {count} lines (limit {limit}); split it')
    return problems


def _method_calls(root: pathlib.Path):
    """(path, call node) of every `<x>.<method>(...)` call in the package's modules.

    NOTE(ast): parsing, not grepping, so docstrings and comments that name a forbidden call
    do not count.
    """
    for path in _modules(root, QUERY_CHECKED):
        tree = ast.parse(path.read_text(encoding='utf-8'), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                yield path.relative_to(root), node


def legacy_queries(root: pathlib.Path) -> list[str]:
    """Calls of a `.query(...)` attribute (Session.query and friends) in the package."""
    return [f'{path}:{node.lineno}: legacy ORM .query(); use sa.select()/sa.update() with '
            'session.execute()'
            for path, node in _method_calls(root) if node.func.attr == 'query']


def _is_deleted_is_false(call: ast.Call) -> bool:
    target, args = call.func.value, call.args
    return (call.func.attr == 'is_' and isinstance(target, ast.Attribute)
            and target.attr == 'deleted' and len(args) == 1
            and isinstance(args[0], ast.Constant) and args[0].value is False)


def unindexed_live_rows(root: pathlib.Path) -> list[str]:
    """`<x>.deleted.is_(False)` calls in the package (live rows by a test no index serves)."""
    return [f'{path}:{node.lineno}: deleted.is_(False); use deleted == sa.false(), which '
            'MariaDB can look up by index'
            for path, node in _method_calls(root) if _is_deleted_is_false(node)]


# (package, the cinderlike packages it may import) for the bottom layers, and
# (package, forbidden package, the modules of it that stay allowed) for the services.
ONLY = (
    ('cinderlike.states', ('cinderlike.states',)),
    ('cinderlike.db', ('cinderlike.db', 'cinderlike.states', 'cinderlike.exception',
                       'cinderlike.capacity')),
    # The host connector is a library of backup/ and volume/: it knows no service.
    ('cinderlike.connector', ('cinderlike.connector', 'cinderlike.exception')),
)
RPC_ONLY = ('cinderlike.scheduler.rpcapi', 'cinderlike.volume.rpcapi',
            'cinderlike.backup.rpcapi')
FORBIDDEN = (
    # api/ reaches the services only through their rpcapi clients, never a driver.
    ('cinderlike.api', 'cinderlike.scheduler', RPC_ONLY),
    ('cinderlike.api', 'cinderlike.volume', RPC_ONLY),
    ('cinderlike.api', 'cinderlike.backup', RPC_ONLY),
    ('cinderlike.api', 'cinderlike.drivers', ()),
    # Attaching volumes is the daemons' work (db/ may import none of it already).
    ('cinderlike.api', 'cinderlike.connector', ()),
    # The services cast to each other's rpcapi and never import another's internals.
    ('cinderlike.scheduler', 'cinderlike.volume', RPC_ONLY),
    ('cinderlike.scheduler', 'cinderlike.backup', RPC_ONLY),
    ('cinderlike.volume', 'cinderlike.scheduler', RPC_ONLY),
    ('cinderlike.volume', 'cinderlike.backup', RPC_ONLY),
    ('cinderlike.backup', 'cinderlike.scheduler', RPC_ONLY),
    ('cinderlike.backup', 'cinderlike.volume', RPC_ONLY),
    # Drivers get what they need from the manager and never touch rows.
    ('cinderlike.drivers', 'cinderlike.db', ()),
    ('cinderlike.drivers', 'cinderlike.quota', ()),
    # No daemon imports api/.
    *((daemon, 'cinderlike.api', ()) for daemon in (
        'cinderlike.scheduler', 'cinderlike.volume', 'cinderlike.backup',
        'cinderlike.drivers', 'cinderlike.db')),
)


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + '.')


def _imported(root: pathlib.Path, tree) -> list[tuple[int, str]]:
    """(line, module) of every absolute cinderlike import; `from a import b` names a.b
    when that is a module of the tree, else a."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                name = f'{node.module}.{alias.name}'
                path = root.joinpath(*name.split('.'))
                module = name if path.with_suffix('.py').exists() or path.is_dir() else \
                    node.module
                found.append((node.lineno, module))
    return [(line, name) for line, name in found if _within(name, 'cinderlike')]


def import_violations(root: pathlib.Path) -> list[str]:
    """Imports that break ARCHITECTURE.md's layering, as `path:line: rule` messages."""
    problems = []
    for path in _modules(root, ('cinderlike',)):
        rel = path.relative_to(root).with_suffix('')
        module = '.'.join(rel.parts[:-1] if rel.name == '__init__' else rel.parts)
        tree = ast.parse(path.read_text(encoding='utf-8'), filename=str(path))
        for line, name in _imported(root, tree):
            for package, allowed in ONLY:
                if _within(module, package) and not any(_within(name, a) for a in allowed):
                    problems.append(f'{path.relative_to(root)}:{line}: {package} may import '
                                    f'only {", ".join(allowed)}, not {name}')
            for package, forbidden, exceptions in FORBIDDEN:
                if (_within(module, package) and _within(name, forbidden)
                        and not _within(name, package)
                        and not any(_within(name, e) for e in exceptions)):
                    allowed = f' (only {", ".join(exceptions)})' if exceptions else ''
                    problems.append(f'{path.relative_to(root)}:{line}: {package} must not '
                                    f'import {name}{allowed}')
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('root', nargs='?', type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent,
                        help='repository root (default: the one holding this script)')
    args = parser.parse_args(argv)
    problems = (oversized(args.root) + legacy_queries(args.root)
                + unindexed_live_rows(args.root) + import_violations(args.root))
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
