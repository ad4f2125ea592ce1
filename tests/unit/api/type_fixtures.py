"""Helpers of the volume type API tests: seeded types, volumes using them, callers."""

import uuid

from cinderlike.db import volume_types as db_types
from cinderlike.db.models import Volume

ADMIN = {'X-Auth-Token': 'admin:admin'}
PROJECT = 'b6a4e8d1c5f04e5ba1a1f1c0d8a6a001'
OTHER = 'b6a4e8d1c5f04e5ba1a1f1c0d8a6a002'


def user(roles='reader,member', project=PROJECT, version=None) -> dict:
    """Headers of a keystone-validated caller (keystone_client)."""
    headers = {'X-User-Id': 'u1', 'X-Project-Id': project, 'X-Roles': roles}
    if version:
        headers['OpenStack-API-Version'] = f'volume {version}'
    return headers


def admin(version=None) -> dict:
    headers = dict(ADMIN)
    if version:
        headers['OpenStack-API-Version'] = f'volume {version}'
    return headers


def seed_default(db):
    """`__DEFAULT__`, as the initial migration creates it."""
    return db_types.create(db, name='__DEFAULT__', description='Default Volume Type')


def add_volume(db, type_id, *, project=PROJECT) -> str:
    volume_id = str(uuid.uuid4())
    with db.writer() as session:
        session.add(Volume(id=volume_id, project_id=project, volume_type_id=type_id, size=1,
                           status='available'))
    return volume_id
