"""volumes: a project's live volumes indexed in the listings' default order (created_at,
then id, both descending), NULLs last as the listings put them, in place of the (deleted,
project_id) index, whose lookups this one's leading columns serve as well.

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
    # first descending; MySQL's and SQLite's put them last.
    nulls = ' NULLS LAST' if op.get_bind().dialect.name == 'postgresql' else ''
    op.create_index('volumes_deleted_project_id_created_at_idx', 'volumes',
                    ['deleted', 'project_id', sa.text(f'created_at DESC{nulls}'),
                     sa.text('id DESC')])
    op.drop_index('volumes_deleted_project_id_idx', table_name='volumes')
