"""Helpers of the volume API tests: a recording RPC client, an app with it, seeded rows."""

import dataclasses

import pytest
import sqlalchemy as sa
from falcon import testing

from cinderlike.api.app import create_app
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import QuotaUsage, Volume
from tests.unit.api.type_fixtures import PROJECT, admin, seed_default, user  # noqa: F401


class Recorder:
    """Stands in for one rpcapi client: records (method, kwargs) of every cast."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, method):
        def cast(ctx, **kwargs):
            self.calls.append((method, kwargs))
        return cast


@dataclasses.dataclass
class RecordingRPC:
    scheduler: Recorder = dataclasses.field(default_factory=Recorder)
    volume: Recorder = dataclasses.field(default_factory=Recorder)


@pytest.fixture
def rpc():
    return RecordingRPC()


@pytest.fixture
def seeded(db):
    """The database with `__DEFAULT__`, as the initial migration leaves it."""
    seed_default(db)
    return db


@pytest.fixture
def vclient(conf, seeded, rpc):
    """noauth client (admin) on an app whose casts land in *rpc*."""
    return testing.TestClient(create_app(conf, db=seeded, rpc=rpc))


@pytest.fixture
def kclient(conf, seeded, rpc):
    """keystone-headers client on the same recording app, for non-admin callers."""
    conf.set_override('auth_strategy', 'keystone')
    return testing.TestClient(create_app(conf, db=seeded, rpc=rpc, use_auth_token=False))


def add_volume(db, *, project='admin', status='available', size=1, host='node@fake#pool',
               type_name='__DEFAULT__', **values) -> Volume:
    vtype = db_types.get_by_name(db, name=type_name)
    return db_volumes.create(db, values={
        'project_id': project, 'user_id': 'u1', 'status': status, 'size': size, 'host': host,
        'volume_type_id': vtype.id, 'attach_status': 'detached',
        'availability_zone': 'nova', **values})


def volume_rows(db) -> list[Volume]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Volume).where(Volume.deleted.is_(False))))


def commits(db) -> list:
    """One entry per transaction committed on *db* from now on."""
    committed = []
    sa.event.listen(db.engine, 'commit', lambda _conn: committed.append(1))
    return committed


def usages(db, project='admin') -> dict[str, tuple[int, int]]:
    """{resource: (in_use, reserved)} of the project."""
    with db.reader() as s:
        return {u.resource: (u.in_use, u.reserved) for u in s.scalars(
            sa.select(QuotaUsage).where(QuotaUsage.project_id == project))}


def post(client, body, headers=None, version=None):
    return client.simulate_post('/v3/volumes', json=body,
                                headers=headers or admin(version))


def action(client, volume_id, body, headers=None, version=None):
    return client.simulate_post(f'/v3/volumes/{volume_id}/action', json=body,
                                headers=headers or admin(version))


def fault(resp) -> tuple[int, str]:
    (name, body), = resp.json.items()
    assert body['code'] == resp.status_code
    assert name == {400: 'badRequest', 404: 'itemNotFound', 413: 'overLimit',
                    403: 'forbidden', 409: 'conflictingRequest'}[resp.status_code]
    return resp.status_code, body['message']
