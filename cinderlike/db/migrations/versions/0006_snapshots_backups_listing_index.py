"""snapshots, backups: a project's live rows indexed in the listings' default order
(created_at, then id, both descending), NULLs last as the listings put them, in place of
their (deleted, project_id) indexes, as 0005 did for volumes.

Revision ID: 0006_snapshots_backups_listing
Revises: 0005_volumes_listing_index
Create Date: 2026-12-06 00:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0006_snapshots_backups_listing'
down_revision = '0005_volumes_listing_index'
branch_labels = None
depends_on = None


def upgrade():
    # NOTE(frozen): spelled out, not the models' SortKey, as in 0005.
    nulls = ' NULLS LAST' if op.get_bind().dialect.name == 'postgresql' else ''
    for table in ('snapshots', 'backups'):
        op.create_index(f'{table}_deleted_project_id_created_at_idx', table,
                        ['deleted', 'project_id', sa.text(f'created_at DESC{nulls}'),
                         sa.text('id DESC')])
        op.drop_index(f'{table}_deleted_project_id_idx', table_name=table)
