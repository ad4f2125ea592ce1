"""Helpers of the snapshot API tests: seeded snapshot rows, their listing, their quota."""

import sqlalchemy as sa

from cinderlike.db import snapshots as db_snapshots
from cinderlike.db.models import Snapshot
from tests.unit.api.type_fixtures import admin
from tests.unit.api.volume_fixtures import usages, volume_rows


def add_snapshot(db, volume, *, status='available', project=None, metadata=None,
                 **values) -> Snapshot:
    """A snapshot row of *volume* (its project unless *project*), then set to *status*."""
    row = db_snapshots.create(db, metadata=metadata, values={
        'volume_id': volume.id, 'project_id': project or volume.project_id, 'user_id': 'u1',
        'volume_size': volume.size, 'volume_type_id': volume.volume_type_id,
        'progress': '100%', **values})
    db_snapshots.MACHINE.reset(db, row_id=row.id, values={'status': status})
    return db_snapshots.get(db, snapshot_id=row.id)


def snapshot_rows(db) -> list[Snapshot]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Snapshot).where(Snapshot.deleted.is_(False))))


def snapshot_usage(db, project='admin') -> dict[str, tuple[int, int]]:
    """{resource: (in_use, reserved)} of the snapshot and gigabytes quotas."""
    return {k: v for k, v in usages(db, project).items()
            if k.startswith(('snapshots', 'gigabytes'))}


def nothing_held(db, project='admin') -> bool:
    """No snapshot quota in use or reserved: gigabytes in use are the live volumes' only."""
    volumes = sum(v.size for v in volume_rows(db) if v.project_id == project)
    return all(v == ((volumes if k.startswith('gigabytes') else 0), 0)
               for k, v in snapshot_usage(db, project).items())


def create(client, body, headers=None, version=None):
    return client.simulate_post('/v3/snapshots', json=body, headers=headers or admin(version))


def action(client, snapshot_id, body, headers=None, version=None):
    return client.simulate_post(f'/v3/snapshots/{snapshot_id}/action', json=body,
                                headers=headers or admin(version))


def fault(resp) -> tuple[int, str]:
    (name, body), = resp.json.items()
    assert body['code'] == resp.status_code
    assert name == {400: 'badRequest', 403: 'forbidden', 404: 'itemNotFound', 409:
                    'conflictingRequest', 413: 'overLimit'}[resp.status_code]
    return resp.status_code, body['message']
