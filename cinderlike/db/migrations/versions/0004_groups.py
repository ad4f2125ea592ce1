"""Generic volume groups: group types with their specs and project access, groups, the
volume types of each group, and group snapshots; seeds Cinder's `default_cgsnapshot_type`.

Revision ID: 0004_groups
Revises: 0003_encryption
Create Date: 2026-12-01 00:00:00
"""

import uuid

import sqlalchemy as sa
from alembic import op
from oslo_utils import timeutils
from sqlalchemy.dialects import mysql

revision = '0004_groups'
down_revision = '0003_encryption'
branch_labels = None
depends_on = None

# NOTE(frozen): types spelled out, as in 0001, so this revision never follows the models.
DateTime = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql', 'mariadb')
DEFAULT_CGSNAPSHOT_TYPE = 'default_cgsnapshot_type'


def _timestamps(deleted=sa.Boolean):
    return [
        sa.Column('created_at', DateTime),
        sa.Column('updated_at', DateTime),
        sa.Column('deleted_at', DateTime),
        sa.Column('deleted', deleted, nullable=False),
    ]


def _group_types():
    types = op.create_table(
        'group_types',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.String(255)),
        sa.Column('is_public', sa.Boolean, nullable=False),
        *_timestamps(),
    )
    specs = op.create_table(
        'group_type_specs',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('key', sa.String(255)),
        sa.Column('value', sa.String(255)),
        sa.Column('group_type_id', sa.String(36), sa.ForeignKey('group_types.id'),
                  nullable=False, index=True),
        *_timestamps(),
    )
    op.create_table(
        'group_type_projects',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('group_type_id', sa.String(36), sa.ForeignKey('group_types.id')),
        sa.Column('project_id', sa.String(255)),
        *_timestamps(deleted=sa.Integer),
        sa.UniqueConstraint('group_type_id', 'project_id', 'deleted'),
    )
    return types, specs


def _groups():
    op.create_table(
        'groups',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('user_id', sa.String(255)),
        sa.Column('project_id', sa.String(255), index=True),
        sa.Column('cluster_name', sa.String(255)),
        sa.Column('host', sa.String(255)),
        sa.Column('availability_zone', sa.String(255)),
        sa.Column('name', sa.String(255)),
        sa.Column('description', sa.String(255)),
        sa.Column('group_type_id', sa.String(36), index=True),
        sa.Column('status', sa.String(255)),
        sa.Column('group_snapshot_id', sa.String(36)),
        sa.Column('source_group_id', sa.String(36)),
        sa.Column('replication_status', sa.String(255)),
        *_timestamps(),
    )
    op.create_table(
        'group_volume_type_mapping',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('volume_type_id', sa.String(36), sa.ForeignKey('volume_types.id'),
                  nullable=False, index=True),
        sa.Column('group_id', sa.String(36), sa.ForeignKey('groups.id'), nullable=False,
                  index=True),
        *_timestamps(),
    )
    op.create_table(
        'group_snapshots',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('group_id', sa.String(36), sa.ForeignKey('groups.id'), nullable=False,
                  index=True),
        sa.Column('user_id', sa.String(255)),
        sa.Column('project_id', sa.String(255), index=True),
        sa.Column('name', sa.String(255)),
        sa.Column('description', sa.String(255)),
        sa.Column('status', sa.String(255)),
        sa.Column('group_type_id', sa.String(36)),
        *_timestamps(),
    )


def upgrade() -> None:
    types, specs = _group_types()
    _groups()
    now = timeutils.utcnow().replace(tzinfo=None)
    type_id = str(uuid.uuid4())
    op.bulk_insert(types, [
        {'id': type_id, 'name': DEFAULT_CGSNAPSHOT_TYPE,
         'description': 'Default group type for migrating cgsnapshot', 'is_public': True,
         'created_at': now, 'updated_at': now, 'deleted': False}])
    op.bulk_insert(specs, [
        {'key': 'consistent_group_snapshot_enabled', 'value': '<is> True',
         'group_type_id': type_id, 'created_at': now, 'updated_at': now, 'deleted': False}])
