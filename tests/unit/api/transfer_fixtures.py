"""Helpers of the transfer API tests: two projects' callers, volumes with usage, snapshots."""

import uuid

import sqlalchemy as sa

from cinderlike import quota
from cinderlike.db.models import Snapshot, Transfer, Volume
from tests.unit.api.type_fixtures import OTHER, PROJECT
from tests.unit.api.volume_fixtures import add_volume, usages

DONOR, TAKER = PROJECT, OTHER


def member(project=DONOR, user='u-donor', roles='reader,member', version=None) -> dict:
    """keystone headers of a project member (kclient)."""
    headers = {'X-User-Id': user, 'X-Project-Id': project, 'X-Roles': roles}
    if version:
        headers['OpenStack-API-Version'] = f'volume {version}'
    return headers


def taker(version=None) -> dict:
    return member(TAKER, 'u-taker', version=version)


def owned_volume(db, conf, *, project=DONOR, size=1, **values) -> Volume:
    """An available volume whose usage is counted in its project, as after a create."""
    # NOTE(order): reserved before the row exists, as the create flow does: a project's
    # first usage rows are counted from the tables.
    deltas = quota.volume_deltas(size=size, volume_type_name='__DEFAULT__')
    quota.commit(db, None, quota.reserve(db, None, conf=conf, project_id=project,
                                         deltas=deltas))
    return add_volume(db, project=project, size=size, **{'user_id': 'u-donor', **values})


def add_snapshot(db, conf, volume, *, status='available', size=None, counted=True) -> str:
    snapshot_id = str(uuid.uuid4())
    if counted:
        deltas = quota.volume_deltas(size=size or volume.size, volume_type_name='__DEFAULT__',
                                     snapshot=True)
        quota.commit(db, None, quota.reserve(db, None, conf=conf,
                                             project_id=volume.project_id, deltas=deltas))
    with db.writer() as session:
        session.add(Snapshot(id=snapshot_id, volume_id=volume.id, status=status,
                             project_id=volume.project_id, user_id=volume.user_id,
                             volume_size=size or volume.size,
                             volume_type_id=volume.volume_type_id))
    return snapshot_id


def snapshot_owners(db, volume_id) -> set[tuple[str, str]]:
    with db.reader() as s:
        return set(s.execute(sa.select(Snapshot.project_id, Snapshot.user_id).where(
            Snapshot.volume_id == volume_id)).all())


def transfer_rows(db) -> list[Transfer]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Transfer).order_by(Transfer.created_at)))


def used(db, project) -> dict[str, int]:
    """{resource: in_use} of *project*, asserting nothing is left reserved."""
    found = usages(db, project)
    assert all(reserved == 0 for _in_use, reserved in found.values()), found
    return {resource: in_use for resource, (in_use, _reserved) in found.items()}


def create(client, volume_id, *, path='volume-transfers', headers, **extra):
    return client.simulate_post(f'/v3/{path}', headers=headers,
                                json={'transfer': {'volume_id': volume_id, **extra}})


def accept(client, transfer_id, auth_key, *, path='volume-transfers', headers):
    return client.simulate_post(f'/v3/{path}/{transfer_id}/accept', headers=headers,
                                json={'accept': {'auth_key': auth_key}})
