"""Project rules ruff does not know, run by `tox -e pep8` and `make pep8`.

- No module under cinderlike/ or tests/ may pass 1,000 lines (alembic migrations are exempt).
- No legacy ORM `.query(` call under cinderlike/: SQLAlchemy 2 `sa.select`/`sa.update` only.
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


def legacy_queries(root: pathlib.Path) -> list[str]:
    """Calls of a `.query(...)` attribute (Session.query and friends) in the package."""
    problems = []
    for path in _modules(root, QUERY_CHECKED):
        # NOTE(ast): parsing, not grepping, so docstrings and comments that name the
        # forbidden call do not count.
        tree = ast.parse(path.read_text(encoding='utf-8'), filename=str(path))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == 'query'):
                problems.append(f'{path.relative_to(root)}:{node.lineno}: legacy ORM '
                                '.query(); use sa.select()/sa.update() with session.execute()')
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('root', nargs='?', type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent,
                        help='repository root (default: the one holding this script)')
    args = parser.parse_args(argv)
    problems = oversized(args.root) + legacy_queries(args.root)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
