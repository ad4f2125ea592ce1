"""Bad input that real PostgreSQL and MariaDB would refuse (DataError 1264/1406) is a 400
with nothing written, and concurrent type creates never answer 500 (InnoDB deadlock 1213
is retried with backoff): one 200 per name, 409 for the duplicates."""

import collections
import threading
import uuid

import pytest
from falcon import testing

from cinderlike import conf as cl_conf
from cinderlike.api.app import create_app
from cinderlike.db import default_types as db_default_types
from cinderlike.db import quotas as db_quotas
from cinderlike.db import volume_types as db_types
from tests.unit.api.volume_fixtures import RecordingRPC


@pytest.fixture
def client(db):
    config = cl_conf.new_conf()
    config([])
    config.set_override('auth_strategy', 'noauth')
    return testing.TestClient(create_app(config, db=db, rpc=RecordingRPC()))


ADMIN = {'X-Auth-Token': 'admin:admin', 'OpenStack-API-Version': 'volume 3.62'}


@pytest.mark.parametrize('value', ['99999999999999999999', 99999999999999999999, '2147483648'])
def test_a_quota_class_limit_past_the_column_is_400(client, db, value):
    name = uuid.uuid4().hex
    resp = client.simulate_put(f'/v3/os-quota-class-sets/{name}', headers=ADMIN,
                               json={'quota_class_set': {'volumes': value}})
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'].endswith('is greater than the maximum of '
                                                       '2147483647')
    assert db_quotas.get_class_limits(db, class_name=name) == {}


def test_a_default_type_for_a_300_character_project_is_400(client, db):
    project = uuid.uuid4().hex * 10
    resp = client.simulate_put(f'/v3/default-types/{project[:300]}', headers=ADMIN,
                               json={'default_type': {'volume_type': '__DEFAULT__'}})
    assert resp.status_code == 400
    assert db_default_types.get(db, project_id=project[:300]) is None
    assert db_default_types.get(db, project_id=project[:255]) is None


def test_twenty_concurrent_type_creates_never_answer_500(client, db):
    """Ten names, each asked for twice at once: one 200 per name, one 409 per duplicate."""
    prefix = uuid.uuid4().hex[:8]
    names = [f'{prefix}-{i % 10}' for i in range(20)]
    start = threading.Barrier(len(names))
    answers = collections.defaultdict(list)

    def create(name):
        start.wait()
        resp = client.simulate_post('/v3/types', headers=ADMIN,
                                    json={'volume_type': {'name': name}})
        answers[name].append(resp.status_code)

    threads = [threading.Thread(target=create, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {name: sorted(codes) for name, codes in answers.items()} == {
        name: [200, 409] for name in set(names)}
    made = [t.name for t in db_types.get_all(db, project_id=None, is_public=None)
            if t.name.startswith(prefix)]
    assert sorted(made) == sorted(set(names))
