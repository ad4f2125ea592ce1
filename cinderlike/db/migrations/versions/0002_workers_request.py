"""workers.request: what a cleanup needs to settle an operation (an extend's new size and
quota reservations), which the volume and its status alone do not tell.

Revision ID: 0002_workers_request
Revises: 0001_initial
Create Date: 2025-01-02 00:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = '0002_workers_request'
down_revision = '0001_initial'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('workers', sa.Column('request', sa.JSON))
