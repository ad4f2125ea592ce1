"""volumes: a project's live volumes indexed in the listings' default order (created_at,
then id), NULLs first as the listings put them, in place of the (deleted, project_id)
index, whose lookups this one's leading columns serve as well.

Revision ID: 0005_volumes_listing_index
Revises: 0004_groups
Create Date: 2026-12-06 00:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0005_volumes_listing_index'
down_revision = '0004_groups'
branch_labels = None
depends_on = None


def upgrade():
    # NOTE(frozen): spelled out, not the models' SortKey: PostgreSQL's own order puts NULLs
    # last ascending; MySQL's and SQLite's put them first.
    created_at = (sa.text('created_at ASC NULLS FIRST')
                  if op.get_bind().dialect.name == 'postgresql' else 'created_at')
    op.create_index('volumes_deleted_project_id_created_at_idx', 'volumes',
                    ['deleted', 'project_id', created_at, 'id'])
    op.drop_index('volumes_deleted_project_id_idx', table_name='volumes')
