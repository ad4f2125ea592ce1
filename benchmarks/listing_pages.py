"""One page of a project's volume, snapshot or backup listing read from the database,
among N of them.

    .venv/bin/python benchmarks/listing_pages.py --db postgresql [-n 5000]
        [--resource volumes|snapshots|backups]

On a fresh migrated database of the server named by CINDERLIKE_TEST_POSTGRESQL_URL (or
..._MYSQL_URL), it inserts N available rows into one project, a few seconds apart in
`created_at`, and two into another (snapshots and backups all of one volume); the server's
statistics are then gathered (as autovacuum or an operator's ANALYZE leave them on a
database in use). It reads, as the detail listing does (for volumes the detail columns and
the computed metadata, admin metadata and attachment flag; in the default order: created_at,
then id, descending), the first page of 50, the page of 50 after a marker in the middle, and
the first page of 1,000 (osapi_max_limit), REPEAT times each. One JSON line: for each page,
the wall-clock p50 and p95 in milliseconds of reading it (the server's work, the transfer
and the driver's decoding) and the process CPU p50; and whether the server sorted the page's
rows or read them in order from an index (from the plan of the first page).
"""

import datetime
import functools
import pathlib
import statistics
import sys
import time
import uuid

# NOTE(path): run as a script, the project root (for tests.*) is not on sys.path.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import inprocess  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from cinderlike.api.views import volumes as view  # noqa: E402
from cinderlike.db import backups as db_backups  # noqa: E402
from cinderlike.db import engine, migration  # noqa: E402
from cinderlike.db import snapshots as db_snapshots  # noqa: E402
from cinderlike.db import volumes as db_volumes  # noqa: E402
from cinderlike.db.models import Backup, Snapshot, Volume  # noqa: E402

PROJECT = 'bench'
REPEAT = 40
PAGES = {'first_50': (50, False), 'middle_50': (50, True), 'first_1000': (1000, False)}


SOURCE = {'id': 'bench-source', 'project_id': PROJECT, 'user_id': 'u1', 'size': 1,
          'status': 'available', 'attach_status': 'detached', 'host': 'bench@b1#b1',
          'volume_type_id': 'bench-type', 'use_quota': True, 'bootable': False,
          'multiattach': False, 'deleted': False}


def _volume(index: int) -> dict:
    return dict(SOURCE, id=str(uuid.uuid4()), availability_zone='nova',
                display_name=f'bench-{index}')


def _snapshot(index: int) -> dict:
    return {'id': str(uuid.uuid4()), 'volume_id': SOURCE['id'], 'user_id': 'u1',
            'status': 'available', 'progress': '100%', 'volume_size': 1,
            'volume_type_id': 'bench-type', 'display_name': f'bench-{index}',
            'use_quota': True, 'deleted': False}


def _backup(index: int) -> dict:
    return {'id': str(uuid.uuid4()), 'volume_id': SOURCE['id'], 'user_id': 'u1',
            'status': 'available', 'size': 1, 'display_name': f'bench-{index}',
            'container': 'bench', 'num_dependent_backups': 0, 'deleted': False}


def _volume_page(db, *, limit: int, marker: str | None) -> list:
    return db_volumes.get_all(
        db, project_id=PROJECT, limit=limit, marker=marker, columns=view.DETAIL_COLUMNS,
        computed=db_volumes.detail_columns(db.dialect, view.VISIBLE_ADMIN_METADATA))


# resource: (model, one row's values, its listing's page)
RESOURCES = {
    'volumes': (Volume, _volume, _volume_page),
    'snapshots': (Snapshot, _snapshot, functools.partial(db_snapshots.get_all,
                                                         project_id=PROJECT)),
    'backups': (Backup, _backup, functools.partial(db_backups.get_all, project_id=PROJECT)),
}


def _seed(db, resource: str, count: int) -> list[str]:
    """*count* rows of PROJECT (ids newest first) and two of another project."""
    model, values, _page = RESOURCES[resource]
    start = datetime.datetime(2026, 1, 1)
    rows = [dict(values(index), project_id=project,
                 created_at=start + datetime.timedelta(seconds=3 * index),
                 updated_at=start + datetime.timedelta(seconds=3 * index))
            for index, project in enumerate([PROJECT] * count + ['other'] * 2)]
    with db.writer() as s:
        if model is not Volume:
            s.execute(sa.insert(Volume), [SOURCE])
        for chunk in range(0, len(rows), 1000):
            s.execute(sa.insert(model), rows[chunk:chunk + 1000])
    table = model.__tablename__
    analyze = f'ANALYZE {table}' if db.dialect == 'postgresql' else f'ANALYZE TABLE {table}'
    with db.engine.connect() as connection:
        result = connection.execute(sa.text(analyze))
        if result.returns_rows:
            result.all()
        connection.commit()
    return [row['id'] for row in reversed(rows[:count])]


def _sorted_by_server(db, _page) -> bool:
    """Whether the server sorts the first page of 50 rather than reading it in order."""
    statements = []

    def keep(_conn, _cursor, statement, parameters, _context, _many):
        statements.append((statement, parameters))
    sa.event.listen(db.engine, 'before_cursor_execute', keep)
    try:
        _page(db, limit=50, marker=None)
    finally:
        sa.event.remove(db.engine, 'before_cursor_execute', keep)
    statement, parameters = statements[0]
    with db.engine.connect() as connection:
        cursor = connection.connection.dbapi_connection.cursor()
        cursor.execute('EXPLAIN ' + statement, parameters)
        plan = ' '.join(str(row) for row in cursor.fetchall()).lower()
    return 'sort' in plan


def run(db_url: str, *, count: int, profile: int = 0, resource: str = 'volumes') -> dict:
    del profile  # NOTE(profile): the pages are the server's work; nothing to profile here
    migration.upgrade(db_url)
    db = engine.Database(db_url)
    _page = RESOURCES[resource][2]
    try:
        ids = _seed(db, resource, count)
        figures = {resource: count, 'sorted_by_server': _sorted_by_server(db, _page)}
        for name, (limit, middle) in PAGES.items():
            marker = ids[len(ids) // 2] if middle else None
            # warm: the statement compiled, the connection open
            page = _page(db, limit=limit, marker=marker)
            expected = ids[len(ids) // 2 + 1:][:limit] if middle else ids[:limit]
            if [row.id for row in page] != expected:
                raise RuntimeError(f'{name}: the page is not the expected rows')
            walls, cpus = [], []
            for _ in range(REPEAT):
                wall, cpu = time.perf_counter(), time.process_time()
                _page(db, limit=limit, marker=marker)
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            walls.sort()
            figures[name] = {'p50_ms': round(statistics.median(walls) * 1000, 2),
                             'p95_ms': round(walls[int(len(walls) * 0.95) - 1] * 1000, 2),
                             'cpu_p50_ms': round(statistics.median(cpus) * 1000, 2)}
    finally:
        db.dispose()
    return figures


if __name__ == '__main__':
    inprocess.main(__doc__, run, count_flag='--rows', choices={'resource': tuple(RESOURCES)})
