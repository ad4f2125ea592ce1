"""SQLAlchemy 2 declarative models: the whole schema, with Cinder's tables and columns.

One module per resource; everything is importable from here (`from cinderlike.db.models
import Service, Volume`), and `Base.metadata` holds every table the migrations create.
"""

from cinderlike.db.models.backups import Backup, BackupMetadata
from cinderlike.db.models.base import Base, DateTime, TimestampMixin, utcnow
from cinderlike.db.models.groups import (
    Group,
    GroupSnapshot,
    GroupType,
    GroupTypeProjects,
    GroupTypeSpecs,
    GroupVolumeTypeMapping,
)
from cinderlike.db.models.messages import Message
from cinderlike.db.models.pools import Pool
from cinderlike.db.models.quotas import Quota, QuotaClass, QuotaUsage, Reservation
from cinderlike.db.models.services import Cluster, Service, Worker
from cinderlike.db.models.snapshots import Snapshot, SnapshotMetadata
from cinderlike.db.models.transfers import Transfer
from cinderlike.db.models.volume_types import (
    DefaultVolumeType,
    Encryption,
    QualityOfServiceSpecs,
    VolumeType,
    VolumeTypeExtraSpecs,
    VolumeTypeProjects,
)
from cinderlike.db.models.volumes import (
    Volume,
    VolumeAdminMetadata,
    VolumeAttachment,
    VolumeMetadata,
)

__all__ = [
    'Backup', 'BackupMetadata', 'Base', 'Cluster', 'DateTime', 'DefaultVolumeType', 'Encryption',
    'Group', 'GroupSnapshot', 'GroupType', 'GroupTypeProjects', 'GroupTypeSpecs',
    'GroupVolumeTypeMapping',
    'Message',
    'Pool', 'QualityOfServiceSpecs', 'Quota', 'QuotaClass', 'QuotaUsage', 'Reservation',
    'Service', 'Snapshot', 'SnapshotMetadata', 'TimestampMixin', 'Transfer', 'Volume',
    'VolumeAdminMetadata', 'VolumeAttachment', 'VolumeMetadata', 'VolumeType',
    'VolumeTypeExtraSpecs', 'VolumeTypeProjects', 'Worker', 'utcnow',
]
