"""cinderlike-api: volumes rows → Cinder's summary, detail, list and volume-summary documents.

Fields follow Cinder's v3 view builder per microversion, plus what Cinder's controller and its
contrib extensions add for each call (`Call`); the caller works out once per request which
policy-guarded attributes it may see (`Visibility`).
"""

import dataclasses
import functools
from collections.abc import Iterable

from cinderlike.api import microversions as mv
from cinderlike.api.views.common import Links, timestamp
from cinderlike.db.models import Volume
from cinderlike.key_manager import FIXED_KEY_ID

# Admin metadata every caller sees in `metadata` (Cinder's _visible_admin_metadata_keys).
VISIBLE_ADMIN_METADATA = ('readonly', 'attached_mode')


@dataclasses.dataclass(frozen=True)
class Call:
    """What Cinder adds to the detail view for one API call."""

    # The os-vol-{tenant,host,mig-status}-attr extensions extend only show and detail.
    extensions: bool
    # add_visible_admin_metadata runs in show, the listings and update, not in create.
    admin_metadata: bool


CREATE = Call(extensions=False, admin_metadata=False)
UPDATE = Call(extensions=False, admin_metadata=True)
SHOW = DETAIL = Call(extensions=True, admin_metadata=True)


@dataclasses.dataclass(frozen=True)
class Visibility:
    """Which policy-guarded attributes the caller may see."""

    admin: bool = False
    # An attachment's host_name: admins and the `service` role (Glance's cinder store).
    attached_host: bool = False
    tenant: bool = False
    host: bool = False
    migration: bool = False


@dataclasses.dataclass
class Extras:
    """What a detail view shows beside the row: metadata, attachments, the type's name."""

    metadata: dict
    attachments: list
    type_name: str | None


def visible_metadata(metadata: dict, admin_metadata: dict) -> dict:
    """The user metadata with the visible admin keys laid over it, as Cinder shows it."""
    return dict(metadata, **{k: v for k, v in admin_metadata.items()
                             if k in VISIBLE_ADMIN_METADATA})


# NOTE(columns): the columns detail() and summary() read, so a listing reads no others
# (tests/unit/api/test_volumes_views.py renders every field from these alone).
DETAIL_COLUMNS = (
    'id', '_name_id', 'use_quota', 'user_id', 'project_id', 'snapshot_id', 'cluster_name',
    'host', 'size', 'availability_zone', 'status', 'migration_status', 'display_name',
    'display_description', 'provider_id', 'volume_type_id', 'source_volid',
    'encryption_key_id', 'group_id', 'bootable', 'multiattach', 'replication_status',
    'service_uuid', 'shared_targets', 'created_at', 'updated_at')
SUMMARY_COLUMNS = ('id', 'display_name')


def summary(volume: Volume, *, links: Links) -> dict:
    return {'id': volume.id, 'name': volume.display_name, 'links': links.item(volume.id)}


def _attachment(volume: Volume, row, see: Visibility) -> dict:
    return {'id': volume.id, 'attachment_id': row.id, 'volume_id': volume.id,
            'server_id': row.instance_uuid,
            'host_name': row.attached_host if see.attached_host else None,
            'device': row.mountpoint, 'attached_at': timestamp(row.attach_time)}


@dataclasses.dataclass(frozen=True)
class _Later:
    """Which fields of later microversions a detail view shows."""

    group_id: bool
    provider_id: bool
    service_fields: bool
    tristate: bool
    cluster_name: bool
    type_id: bool
    key_id: bool
    consumes_quota: bool


@functools.lru_cache(maxsize=256)
def _later(major: int, minor: int, admin: bool) -> _Later:
    """NOTE(perf): worked out once per version and caller kind, not per field of every row of
    a listing (seven version comparisons per volume)."""
    version = mv.APIVersion(major, minor)
    return _Later(
        group_id=version.matches(mv.GROUP_VOLUME),
        provider_id=admin and version.matches(mv.VOLUME_DETAIL_PROVIDER_ID),
        service_fields=version.matches(mv.SHARED_TARGETS_AND_SERVICE_FIELDS),
        tristate=version.matches(mv.SHARED_TARGETS_TRISTATE),
        cluster_name=admin and version.matches(mv.VOLUME_CLUSTER_NAME),
        type_id=version.matches(mv.VOLUME_TYPE_ID_IN_VOL_DETAIL),
        key_id=version.matches(mv.ENCRYPTION_KEY_ID_IN_DETAILS),
        consumes_quota=version.matches(mv.USE_QUOTA))


def _versioned(shown: dict, volume: Volume, version, see: Visibility) -> None:
    """The fields later microversions add to the detail view."""
    later = _later(version.major, version.minor, see.admin)
    if later.group_id:
        shown['group_id'] = volume.group_id
    if later.provider_id:
        shown['provider_id'] = volume.provider_id
    if later.service_fields:
        shown['service_uuid'] = volume.service_uuid
        # NOTE(tristate): before 3.69 an unknown shared_targets is shown as True, the
        # safe answer for hosts that must lock around connections.
        shared = volume.shared_targets
        shown['shared_targets'] = (shared if later.tristate
                                   else True if shared is None else shared)
    if later.cluster_name:
        shown['cluster_name'] = volume.cluster_name
    if later.type_id:
        shown['volume_type_id'] = volume.volume_type_id
    key_id = volume.encryption_key_id
    # NOTE(fixed_key): as Cinder, the fixed key's id is never shown as encryption_key_id.
    if later.key_id and key_id and key_id != FIXED_KEY_ID:
        shown['encryption_key_id'] = key_id
    if later.consumes_quota:
        shown['consumes_quota'] = volume.use_quota


def detail(volume: Volume, extras: Extras, *, version, links: Links, see: Visibility,
           call: Call) -> dict:
    """The full view of one volume at microversion *version*, as *call* answers it."""
    shown = {
        'id': volume.id, 'status': volume.status, 'size': volume.size,
        'availability_zone': volume.availability_zone,
        'created_at': timestamp(volume.created_at), 'updated_at': timestamp(volume.updated_at),
        'attachments': [_attachment(volume, a, see) for a in extras.attachments],
        'name': volume.display_name, 'description': volume.display_description,
        'volume_type': extras.type_name, 'snapshot_id': volume.snapshot_id,
        'source_volid': volume.source_volid, 'metadata': extras.metadata,
        'links': links.item(volume.id), 'user_id': volume.user_id,
        'bootable': str(bool(volume.bootable)).lower(),
        'encrypted': volume.encryption_key_id is not None,
        'replication_status': volume.replication_status, 'consistencygroup_id': None,
        'multiattach': volume.multiattach,
    }
    if see.admin:
        shown['migration_status'] = volume.migration_status
    _versioned(shown, volume, version, see)
    if call.extensions:
        _extended(shown, volume, see)
    return shown


def _extended(shown: dict, volume: Volume, see: Visibility) -> None:
    """What Cinder's contrib extensions add to show and detail, each behind its policy."""
    if see.tenant:
        shown['os-vol-tenant-attr:tenant_id'] = volume.project_id
    if see.host:
        shown['os-vol-host-attr:host'] = volume.host
    if see.migration:
        shown['os-vol-mig-status-attr:migstat'] = volume.migration_status
        shown['os-vol-mig-status-attr:name_id'] = volume._name_id


def collection(items: Iterable[dict], *, version, count: int | None = None,
               next_href: str | None = None) -> dict:
    """{"volumes": [...], "volumes_links": [next], "count": N (3.45 with_count)}; *items*
    first (body.send_collection encodes them as they come)."""
    shown: dict = {'volumes': items}
    if next_href:
        shown['volumes_links'] = [{'rel': 'next', 'href': next_href}]
    if count is not None and version.matches(mv.SUPPORT_COUNT_INFO):
        shown['count'] = count
    return shown


def volume_summary(total_count: int, total_size: int, metadata: dict, *, version) -> dict:
    """GET /volumes/summary (3.12); metadata from 3.36."""
    shown = {'total_size': total_size, 'total_count': total_count}
    if version.matches(mv.VOLUME_SUMMARY_METADATA):
        shown['metadata'] = metadata
    return {'volume-summary': shown}
