"""The API's own cost per request: POST /volumes and DELETE /volumes/{id}, in-process.

    .venv/bin/python benchmarks/api_requests.py --db postgresql [-n 300] [--profile 25]

On a fresh migrated database of the server named by CINDERLIKE_TEST_POSTGRESQL_URL (or
..._MYSQL_URL), falcon's TestClient drives the WSGI app as one noauth admin with the casts
recorded (no RabbitMQ): N POSTs of a 1 GiB volume, then (the rows made `available` on a
host, as the volume service leaves them) 20 `GET /volumes/detail` of all of them (N+10) and
N DELETEs, in one thread. One JSON line: process
CPU ms per request, SQL statements and commits per request over half of them and Python
function calls over the other half (cProfile; a count that does not move with the machine's
load). `--profile K` prints the K costliest functions of that half to stderr.
"""

import pathlib
import sys

# NOTE(path): run as a script, the project root (for tests.*) is not on sys.path.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import inprocess  # noqa: E402
import sqlalchemy as sa  # noqa: E402
from falcon import testing  # noqa: E402

from cinderlike import conf as conf_pkg  # noqa: E402
from cinderlike.api.app import create_app  # noqa: E402
from cinderlike.conf import api as api_conf  # noqa: E402
from cinderlike.db import engine, migration  # noqa: E402
from cinderlike.db.models import Volume  # noqa: E402
from tests.unit.api.volume_fixtures import RecordingRPC  # noqa: E402

PROJECT = 'bench'
HEADERS = {'X-Auth-Token': f'admin:{PROJECT}'}
WARM = 10
LISTINGS = 20  # GET /volumes/detail of every volume, between the POSTs and DELETEs


def _client(db) -> testing.TestClient:
    conf = conf_pkg.new_conf()
    conf([], default_config_files=[])
    conf.set_override('auth_strategy', 'noauth')
    conf.set_override('project_id_regex', api_conf.ANY_PROJECT_ID_REGEX)
    return testing.TestClient(create_app(conf, db=db, rpc=RecordingRPC()))


def _request(client, method: str, path: str, expect: int, body=None) -> dict | None:
    result = client.simulate_request(method, f'/v3/{PROJECT}{path}', headers=HEADERS,
                                     json=body)
    if result.status_code != expect:
        raise RuntimeError(f'{method} {path}: {result.status_code} {result.text}')
    return result.json if result.text else None


def run(db_url: str, *, count: int, profile: int = 0) -> dict:
    migration.upgrade(db_url)
    db = engine.Database(db_url)
    try:
        client = _client(db)
        _request(client, 'PUT', f'/os-quota-sets/{PROJECT}', 200, {'quota_set': {
            'volumes': -1, 'gigabytes': -1, 'per_volume_gigabytes': -1}})
        counter = inprocess.Counter(db.engine)
        ids = []

        def create(_index):
            ids.append(_request(client, 'POST', '/volumes', 202,
                                {'volume': {'size': 1}})['volume']['id'])

        for index in range(WARM):
            create(index)
        created, create_prof = inprocess.timed(create, range(count), counter)
        with db.writer() as s:
            s.execute(sa.update(Volume).where(Volume.deleted.is_(False)).values(
                status='available', host='bench@b1#b1'))
        listed, list_prof = inprocess.timed(
            lambda _index: _request(client, 'GET', f'/volumes/detail?limit={len(ids)}', 200),
            range(LISTINGS), counter)
        deleted, delete_prof = inprocess.timed(
            lambda volume_id: _request(client, 'DELETE', f'/volumes/{volume_id}', 202),
            ids[WARM:], counter)
    finally:
        db.dispose()
    if profile:
        inprocess.print_profiles({'POST': create_prof, 'GET detail': list_prof,
                                  'DELETE': delete_prof}, profile, sys.stderr)
    return {'requests': count, 'post': created, 'list_detail': listed, 'delete': deleted,
            'cpu_ms_per_volume': round(created['cpu_ms'] + deleted['cpu_ms'], 2)}


if __name__ == '__main__':
    inprocess.main(__doc__, run, count_flag='--requests')
