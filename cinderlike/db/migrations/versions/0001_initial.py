"""Initial schema: every table of issue 2, the default quota class and the default volume type.

Revision ID: 0001_initial
Revises:
Create Date: 2025-01-01 00:00:00
"""

import uuid

import sqlalchemy as sa
from alembic import op
from oslo_utils import timeutils
from sqlalchemy.dialects import mysql

revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None

# NOTE(frozen): types are spelled out here rather than imported from the models, so this
# revision keeps creating the same schema whatever the models become.
DateTime = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql', 'mariadb')

# Cinder's defaults for quota class 'default' (quota_volumes, quota_snapshots, ...).
DEFAULT_QUOTAS = {
    'volumes': 10, 'snapshots': 10, 'gigabytes': 1000, 'per_volume_gigabytes': -1,
    'groups': 10, 'backups': 10, 'backup_gigabytes': 1000,
}
DEFAULT_VOLUME_TYPE = '__DEFAULT__'


def _timestamps(deleted=sa.Boolean):
    return [
        sa.Column('created_at', DateTime),
        sa.Column('updated_at', DateTime),
        sa.Column('deleted_at', DateTime),
        sa.Column('deleted', deleted, nullable=False),
    ]


def _key_value(table, parent_column, parent, parent_type=sa.String(36)):
    op.create_table(
        table,
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('key', sa.String(255)),
        sa.Column('value', sa.String(255)),
        sa.Column(parent_column, parent_type, sa.ForeignKey(parent), nullable=False,
                  index=True),
        *_timestamps(),
    )


def _services():
    op.create_table(
        'services',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), unique=True),
        sa.Column('host', sa.String(255)),
        sa.Column('binary', sa.String(255)),
        sa.Column('topic', sa.String(255)),
        sa.Column('cluster_name', sa.String(255)),
        sa.Column('report_count', sa.Integer, nullable=False),
        sa.Column('disabled', sa.Boolean, nullable=False),
        sa.Column('disabled_reason', sa.String(255)),
        sa.Column('availability_zone', sa.String(255)),
        sa.Column('modified_at', DateTime),
        sa.Column('rpc_current_version', sa.String(36)),
        sa.Column('object_current_version', sa.String(36)),
        sa.Column('replication_status', sa.String(36)),
        sa.Column('active_backend_id', sa.String(255)),
        sa.Column('frozen', sa.Boolean, nullable=False),
        *_timestamps(),
        sa.Index('ix_services_host_binary', 'host', 'binary'),
    )
    op.create_table(
        'clusters',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('binary', sa.String(255), nullable=False),
        sa.Column('disabled', sa.Boolean, nullable=False),
        sa.Column('disabled_reason', sa.String(255)),
        sa.Column('race_preventer', sa.Integer, nullable=False),
        sa.Column('replication_status', sa.String(36)),
        sa.Column('active_backend_id', sa.String(255)),
        sa.Column('frozen', sa.Boolean, nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('name', 'binary', 'race_preventer'),
    )
    op.create_table(
        'workers',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('resource_type', sa.String(40), nullable=False),
        sa.Column('resource_id', sa.String(36), nullable=False),
        sa.Column('status', sa.String(255), nullable=False),
        sa.Column('service_id', sa.Integer, sa.ForeignKey('services.id'), index=True),
        sa.Column('race_preventer', sa.Integer, nullable=False),
        sa.Column('epoch', sa.Integer, nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('resource_type', 'resource_id'),
    )


def _volumes():
    op.create_table(
        'volumes',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('_name_id', sa.String(36)),
        sa.Column('use_quota', sa.Boolean, nullable=False),
        sa.Column('user_id', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        sa.Column('snapshot_id', sa.String(36)),
        sa.Column('cluster_name', sa.String(255)),
        sa.Column('host', sa.String(255)),
        sa.Column('size', sa.Integer),
        sa.Column('availability_zone', sa.String(255)),
        sa.Column('status', sa.String(255)),
        sa.Column('attach_status', sa.String(255)),
        sa.Column('migration_status', sa.String(255)),
        sa.Column('scheduled_at', DateTime),
        sa.Column('launched_at', DateTime),
        sa.Column('terminated_at', DateTime),
        sa.Column('display_name', sa.String(255)),
        sa.Column('display_description', sa.String(255)),
        sa.Column('provider_location', sa.String(256)),
        sa.Column('provider_auth', sa.String(256)),
        sa.Column('provider_geometry', sa.String(255)),
        sa.Column('provider_id', sa.String(255)),
        sa.Column('volume_type_id', sa.String(36), nullable=False),
        sa.Column('source_volid', sa.String(36)),
        sa.Column('encryption_key_id', sa.String(36)),
        sa.Column('group_id', sa.String(36), index=True),
        sa.Column('bootable', sa.Boolean, nullable=False),
        sa.Column('multiattach', sa.Boolean, nullable=False),
        sa.Column('replication_status', sa.String(255)),
        sa.Column('replication_extended_status', sa.String(255)),
        sa.Column('replication_driver_data', sa.String(255)),
        sa.Column('previous_status', sa.String(255)),
        sa.Column('service_uuid', sa.String(36), sa.ForeignKey('services.uuid')),
        sa.Column('shared_targets', sa.Boolean),
        *_timestamps(),
        sa.Index('volumes_service_uuid_idx', 'service_uuid', 'deleted'),
        sa.Index('volumes_deleted_project_id_idx', 'deleted', 'project_id'),
        sa.Index('volumes_deleted_host_idx', 'deleted', 'host'),
        sa.Index('volumes_deleted_cluster_name_idx', 'deleted', 'cluster_name'),
        sa.Index('volumes_deleted_status_idx', 'deleted', 'status'),
    )
    _key_value('volume_metadata', 'volume_id', 'volumes.id')
    _key_value('volume_admin_metadata', 'volume_id', 'volumes.id')
    op.create_table(
        'volume_attachment',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('volume_id', sa.String(36), sa.ForeignKey('volumes.id'), nullable=False,
                  index=True),
        sa.Column('attached_host', sa.String(255)),
        sa.Column('instance_uuid', sa.String(36)),
        sa.Column('mountpoint', sa.String(255)),
        sa.Column('attach_time', DateTime),
        sa.Column('detach_time', DateTime),
        sa.Column('attach_mode', sa.String(36)),
        sa.Column('attach_status', sa.String(255)),
        sa.Column('connection_info', sa.Text),
        sa.Column('connector', sa.Text),
        *_timestamps(),
    )


def _snapshots_and_backups():
    op.create_table(
        'snapshots',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('use_quota', sa.Boolean, nullable=False),
        sa.Column('volume_id', sa.String(36), sa.ForeignKey('volumes.id'), nullable=False,
                  index=True),
        sa.Column('user_id', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        sa.Column('status', sa.String(255)),
        sa.Column('progress', sa.String(255)),
        sa.Column('volume_size', sa.Integer),
        sa.Column('scheduled_at', DateTime),
        sa.Column('display_name', sa.String(255)),
        sa.Column('display_description', sa.String(255)),
        sa.Column('provider_location', sa.String(255)),
        sa.Column('encryption_key_id', sa.String(36)),
        sa.Column('volume_type_id', sa.String(36), nullable=False),
        sa.Column('group_snapshot_id', sa.String(36), index=True),
        sa.Column('provider_id', sa.String(255)),
        sa.Column('provider_auth', sa.String(255)),
        *_timestamps(),
        sa.Index('snapshots_deleted_project_id_idx', 'deleted', 'project_id'),
    )
    _key_value('snapshot_metadata', 'snapshot_id', 'snapshots.id')
    op.create_table(
        'backups',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('volume_id', sa.String(36), nullable=False),
        sa.Column('user_id', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        sa.Column('host', sa.String(255)),
        sa.Column('availability_zone', sa.String(255)),
        sa.Column('display_name', sa.String(255)),
        sa.Column('display_description', sa.String(255)),
        sa.Column('container', sa.String(255)),
        sa.Column('status', sa.String(255)),
        sa.Column('fail_reason', sa.String(255)),
        sa.Column('service_metadata', sa.String(255)),
        sa.Column('service', sa.String(255)),
        sa.Column('size', sa.Integer),
        sa.Column('object_count', sa.Integer),
        sa.Column('parent_id', sa.String(36)),
        sa.Column('temp_volume_id', sa.String(36)),
        sa.Column('temp_snapshot_id', sa.String(36)),
        sa.Column('num_dependent_backups', sa.Integer, nullable=False),
        sa.Column('snapshot_id', sa.String(36)),
        sa.Column('data_timestamp', DateTime),
        sa.Column('restore_volume_id', sa.String(36)),
        sa.Column('encryption_key_id', sa.String(36)),
        *_timestamps(),
        sa.Index('backups_deleted_project_id_idx', 'deleted', 'project_id'),
        sa.Index('backups_volume_id_data_timestamp_idx', 'volume_id', 'data_timestamp'),
    )
    _key_value('backup_metadata', 'backup_id', 'backups.id')


def _volume_types():
    op.create_table(
        'quality_of_service_specs',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('key', sa.String(255)),
        sa.Column('value', sa.String(255)),
        sa.Column('specs_id', sa.String(36), sa.ForeignKey('quality_of_service_specs.id'),
                  index=True),
        *_timestamps(),
    )
    types = op.create_table(
        'volume_types',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('name', sa.String(255)),
        sa.Column('description', sa.String(255)),
        sa.Column('qos_specs_id', sa.String(36), sa.ForeignKey('quality_of_service_specs.id'),
                  index=True),
        sa.Column('is_public', sa.Boolean, nullable=False),
        *_timestamps(),
    )
    _key_value('volume_type_extra_specs', 'volume_type_id', 'volume_types.id')
    op.create_table(
        'volume_type_projects',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('volume_type_id', sa.String(36), sa.ForeignKey('volume_types.id')),
        sa.Column('project_id', sa.String(255)),
        *_timestamps(deleted=sa.Integer),
        sa.UniqueConstraint('volume_type_id', 'project_id', 'deleted'),
    )
    op.create_table(
        'default_volume_types',
        sa.Column('project_id', sa.String(255), primary_key=True),
        sa.Column('volume_type_id', sa.String(36), sa.ForeignKey('volume_types.id'),
                  index=True),
        *_timestamps(),
    )
    return types


def _quotas():
    op.create_table(
        'quotas',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('project_id', sa.String(255), index=True),
        sa.Column('resource', sa.String(300), nullable=False),
        sa.Column('hard_limit', sa.Integer),
        *_timestamps(),
    )
    classes = op.create_table(
        'quota_classes',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('class_name', sa.String(255), index=True),
        sa.Column('resource', sa.String(300)),
        sa.Column('hard_limit', sa.Integer),
        *_timestamps(),
    )
    op.create_table(
        'quota_usages',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('project_id', sa.String(255)),
        sa.Column('resource', sa.String(300)),
        sa.Column('in_use', sa.Integer, nullable=False),
        sa.Column('reserved', sa.Integer, nullable=False),
        sa.Column('until_refresh', sa.Integer),
        sa.Column('race_preventer', sa.Boolean),
        *_timestamps(),
        sa.Index('quota_usage_project_resource_idx', 'project_id', 'resource'),
        sa.UniqueConstraint('project_id', 'resource', 'race_preventer'),
    )
    op.create_table(
        'reservations',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('usage_id', sa.Integer, sa.ForeignKey('quota_usages.id'), index=True),
        sa.Column('project_id', sa.String(255), index=True),
        sa.Column('resource', sa.String(300)),
        sa.Column('delta', sa.Integer, nullable=False),
        sa.Column('expire', DateTime),
        *_timestamps(),
        sa.Index('reservations_deleted_expire_idx', 'deleted', 'expire'),
        sa.Index('reservations_deleted_uuid_idx', 'deleted', 'uuid'),
    )
    return classes


def _messages_and_transfers():
    op.create_table(
        'messages',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('request_id', sa.String(255)),
        sa.Column('resource_type', sa.String(36)),
        sa.Column('resource_uuid', sa.String(255)),
        sa.Column('event_id', sa.String(255), nullable=False),
        sa.Column('message_level', sa.String(255), nullable=False),
        sa.Column('expires_at', DateTime, index=True),
        sa.Column('detail_id', sa.String(10)),
        sa.Column('action_id', sa.String(10)),
        *_timestamps(),
    )
    op.create_table(
        'transfers',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('volume_id', sa.String(36), sa.ForeignKey('volumes.id'), nullable=False,
                  index=True),
        sa.Column('display_name', sa.String(255)),
        sa.Column('salt', sa.String(255)),
        sa.Column('crypt_hash', sa.String(255)),
        sa.Column('expires_at', DateTime),
        sa.Column('no_snapshots', sa.Boolean, nullable=False),
        sa.Column('source_project_id', sa.String(255)),
        sa.Column('destination_project_id', sa.String(255)),
        sa.Column('accepted', sa.Boolean, nullable=False),
        *_timestamps(),
    )


def _pools():
    op.create_table(
        'pools',
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('backend', sa.String(255), nullable=False, index=True),
        sa.Column('cluster_name', sa.String(255)),
        sa.Column('race_preventer', sa.Integer, nullable=False),
        sa.Column('total_capacity_gb', sa.Double),
        sa.Column('free_capacity_gb', sa.Double),
        sa.Column('reserved_percentage', sa.Integer, nullable=False),
        sa.Column('thin_provisioning', sa.Boolean, nullable=False),
        sa.Column('max_over_subscription_ratio', sa.String(20), nullable=False),
        sa.Column('capacity_limit_gb', sa.Double),
        sa.Column('allocated_capacity_gb', sa.Double, nullable=False),
        sa.Column('provisioned_capacity_gb', sa.Double, nullable=False),
        sa.Column('report_seq', sa.BigInteger, nullable=False),
        sa.Column('reported_at', DateTime),
        *_timestamps(),
        sa.UniqueConstraint('name', 'race_preventer'),
    )


def _seed(quota_classes, volume_types):
    now = timeutils.utcnow().replace(tzinfo=None)
    op.bulk_insert(quota_classes, [
        {'created_at': now, 'class_name': 'default', 'resource': resource,
         'hard_limit': limit, 'deleted': False}
        for resource, limit in DEFAULT_QUOTAS.items()])
    op.bulk_insert(volume_types, [
        {'id': str(uuid.uuid4()), 'name': DEFAULT_VOLUME_TYPE,
         'description': 'Default Volume Type', 'is_public': True,
         'created_at': now, 'updated_at': now, 'deleted': False}])


def upgrade() -> None:
    _services()
    _volumes()
    _snapshots_and_backups()
    volume_types = _volume_types()
    quota_classes = _quotas()
    _messages_and_transfers()
    _pools()
    _seed(quota_classes, volume_types)
