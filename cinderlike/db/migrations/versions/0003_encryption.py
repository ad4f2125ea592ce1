"""encryption: Cinder's table of volume type encryption specs (provider, cipher, key_size,
control_location), one live row per type.

Revision ID: 0003_encryption
Revises: 0002_workers_request
Create Date: 2025-01-03 00:00:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = '0003_encryption'
down_revision = '0002_workers_request'
branch_labels = None
depends_on = None

# NOTE(frozen): spelled out, not imported from the models (see 0001_initial).
DateTime = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql', 'mariadb')


def upgrade():
    op.create_table(
        'encryption',
        sa.Column('encryption_id', sa.String(36), primary_key=True),
        sa.Column('volume_type_id', sa.String(36), sa.ForeignKey('volume_types.id'),
                  nullable=False, index=True),
        sa.Column('cipher', sa.String(255)),
        sa.Column('key_size', sa.Integer),
        sa.Column('provider', sa.String(255)),
        sa.Column('control_location', sa.String(255)),
        sa.Column('created_at', DateTime),
        sa.Column('updated_at', DateTime),
        sa.Column('deleted_at', DateTime),
        sa.Column('deleted', sa.Boolean, nullable=False),
    )
