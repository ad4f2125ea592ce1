"""The interface the volume manager drives on each backend (cinderlike-volume process).

Drivers get what they need from the manager (a VolumeRef, sizes, a connector) and never touch
database rows; what they return is a dict of columns for the manager to store.
"""

import abc
import dataclasses

from oslo_log import log as logging

from cinderlike import exception

LOG = logging.getLogger(__name__)

# Cinder's volume_name_template / snapshot_name_template: the names a backend knows data by.
VOLUME_NAME_TEMPLATE = 'volume-%s'
SNAPSHOT_NAME_TEMPLATE = 'snapshot-%s'


@dataclasses.dataclass(frozen=True)
class VolumeRef:
    """What a driver may know about a volume: ids, size in GiB and where the backend put it."""

    id: str
    name_id: str
    size: int
    provider_location: str | None = None
    # The type's QoS specs ({'id', 'name', 'consumer', 'specs'}): the back-end ones at
    # create; at initialize_connection the type's own, whose front-end specs go to the host.
    qos_specs: dict | None = None
    # 'CHAP <username> <password>' of the volume's export (Cinder's provider_auth).
    provider_auth: str | None = None
    encryption_key_id: str | None = None
    # Admin metadata readonly='True': hosts get the volume with access_mode 'ro'.
    readonly: bool = False

    @property
    def name(self) -> str:
        return VOLUME_NAME_TEMPLATE % self.name_id

    @classmethod
    def of(cls, volume, *, size: int | None = None, qos_specs: dict | None = None,
           readonly: bool = False) -> 'VolumeRef':
        """The ref of a volumes row (read by the manager, never by the driver)."""
        return cls(id=volume.id, name_id=volume.name_id,
                   size=volume.size if size is None else size,
                   provider_location=volume.provider_location, qos_specs=qos_specs,
                   provider_auth=volume.provider_auth,
                   encryption_key_id=volume.encryption_key_id, readonly=readonly)


@dataclasses.dataclass(frozen=True)
class SnapshotRef:
    """What a driver may know about a snapshot: its id, its volume and its size in GiB."""

    id: str
    volume: VolumeRef
    volume_size: int
    provider_location: str | None = None
    # 'CHAP <username> <password>' of the snapshot's export, as a volume's.
    provider_auth: str | None = None
    # NOTE(export): what a target reads of an exported volume, so a snapshot exports alike:
    # never writable, no QoS of its own, encrypted as its volume.
    qos_specs = None
    readonly = True

    @property
    def name(self) -> str:
        return SNAPSHOT_NAME_TEMPLATE % self.id

    @property
    def encryption_key_id(self) -> str | None:
        return self.volume.encryption_key_id

    @classmethod
    def of(cls, snapshot, volume) -> 'SnapshotRef':
        """The ref of a snapshots row and its volume's row (read by the manager)."""
        return cls(id=snapshot.id, volume=VolumeRef.of(volume),
                   volume_size=snapshot.volume_size,
                   provider_location=snapshot.provider_location,
                   provider_auth=snapshot.provider_auth)


class VolumeDriver(abc.ABC):
    """One backend's driver; `configuration` is the backend's BackendConfiguration."""

    VERSION = '1.0.0'
    # A driver must declare that several services may drive one backend at once (several
    # members of an Active-Active cluster); the manager refuses to start clustered otherwise.
    SUPPORTS_ACTIVE_ACTIVE = False
    # Options of this driver, registered into the backend's section by the manager.
    DRIVER_OPTS = []

    def __init__(self, configuration, *, host):
        self.configuration = configuration
        self.host = host

    @property
    def backend_name(self) -> str:
        """volume_backend_name, or the driver's class name as Cinder falls back to."""
        return self.configuration.volume_backend_name or type(self).__name__

    @abc.abstractmethod
    def do_setup(self, context):
        """Connect to the backend and prepare it; raise on failure (the manager retries)."""

    @abc.abstractmethod
    def check_for_setup_error(self):
        """Raise when the backend is not usable after do_setup."""

    @abc.abstractmethod
    def get_volume_stats(self, refresh=False) -> dict:
        """Backend capabilities and per-pool capacity, as Cinder drivers report them.

        Keys: volume_backend_name, vendor_name, driver_version, storage_protocol and `pools`,
        a list of dicts with pool_name, total_capacity_gb, free_capacity_gb,
        allocated_capacity_gb, provisioned_capacity_gb, reserved_percentage,
        max_over_subscription_ratio, thin_provisioning_support, thick_provisioning_support.
        """

    @abc.abstractmethod
    def create_volume(self, volume: VolumeRef) -> dict | None:
        """Allocate an empty volume of `volume.size` GiB; returns columns to store
        (provider_location, ...) or None.

        :raises VolumeDriverException: the volume is rescheduled or ends in `error`.
        """

    @abc.abstractmethod
    def create_cloned_volume(self, volume: VolumeRef, source: VolumeRef) -> dict | None:
        """Allocate *volume* holding a copy of *source*'s data (grown to `volume.size`)."""

    @abc.abstractmethod
    def delete_volume(self, volume: VolumeRef) -> None:
        """Free the volume's storage; a volume the backend does not have is already deleted.

        :raises VolumeIsBusy: the backend cannot delete it now (the volume stays available).
        """

    @abc.abstractmethod
    def extend_volume(self, volume: VolumeRef, new_size: int) -> None:
        """Grow the volume to *new_size* GiB, keeping its data."""

    @abc.abstractmethod
    def create_export(self, volume: VolumeRef, connector: dict | None) -> dict | None:
        """Make the volume reachable by hosts (a target); returns columns to store or None."""

    @abc.abstractmethod
    def ensure_export(self, volume: VolumeRef) -> None:
        """Recreate an exported volume's target (at init_host, e.g. after a target daemon
        restart), with the export columns create_export returned."""

    @abc.abstractmethod
    def remove_export(self, volume: VolumeRef) -> None:
        """Undo create_export."""

    @abc.abstractmethod
    def initialize_connection(self, volume: VolumeRef, connector: dict) -> dict:
        """Connection info for os-brick: {'driver_volume_type': ..., 'data': {...}}."""

    @abc.abstractmethod
    def terminate_connection(self, volume: VolumeRef, connector: dict | None) -> None:
        """Stop letting *connector*'s host reach the volume."""

    @abc.abstractmethod
    def create_snapshot(self, snapshot: SnapshotRef) -> dict | None:
        """Keep the data `snapshot.volume` holds now; returns columns to store or None."""

    @abc.abstractmethod
    def delete_snapshot(self, snapshot: SnapshotRef) -> None:
        """Free the snapshot; one the backend does not have is already deleted.

        :raises SnapshotIsBusy: the backend cannot delete it now (it stays available).
        """

    @abc.abstractmethod
    def create_volume_from_snapshot(self, volume: VolumeRef,
                                    snapshot: SnapshotRef) -> dict | None:
        """Allocate *volume* holding the snapshot's data (grown to `volume.size`)."""

    @abc.abstractmethod
    def revert_to_snapshot(self, volume: VolumeRef, snapshot: SnapshotRef) -> None:
        """Make *volume*'s data the snapshot's again (same size, as the API requires)."""

    # --- retype (Cinder's) ------------------------------------------------------------

    def retype(self, volume: VolumeRef, new_type: dict, diff: dict) -> bool | tuple[bool, dict]:
        """Give *volume* the type *new_type* ({'id', 'name', 'extra_specs'}) on this backend;
        *diff* is {'extra_specs': {key: (old, new)}, 'qos_specs': {...}}. False (the base
        answer, Cinder's) when the driver cannot: the volume is migrated instead, if allowed.
        (True, columns) also stores those columns."""
        return False
    # --- manage / unmanage (Cinder's ManageableVD and ManageableSnapshotsVD) -----------
    # A driver that cannot adopt backend objects keeps these defaults: a manage request
    # ends `error_managing`, the lists are empty, an unmanage only forgets the row.

    def manage_existing_get_size(self, volume: VolumeRef, ref: dict) -> int:
        """GiB (rounded up) of the backend object *ref* names, which *volume* will own.

        :raises ManageExistingInvalidReference: no such object, or not one to manage.
        """
        raise exception.ManageExistingInvalidReference(
            existing_ref=ref, reason=f'{type(self).__name__} cannot manage existing volumes')

    def manage_existing(self, volume: VolumeRef, ref: dict) -> dict | None:
        """Make the object *ref* names *volume*'s (renamed to `volume.name` where the
        backend names objects); columns to store or None."""
        raise exception.ManageExistingInvalidReference(
            existing_ref=ref, reason=f'{type(self).__name__} cannot manage existing volumes')

    def unmanage(self, volume: VolumeRef) -> None:
        """*volume* leaves cinderlike; the backend keeps its data."""
        return None

    def get_manageable_volumes(self, cinder_volumes: list[VolumeRef], *, marker, limit,
                               offset, sort_keys, sort_dirs) -> list[dict]:
        """The backend's volumes (drivers/volume/manageable.py entries), paged."""
        return []

    def manage_existing_snapshot_get_size(self, snapshot: SnapshotRef, ref: dict) -> int:
        """GiB (rounded up) of the snapshot object *ref* names."""
        raise exception.ManageExistingInvalidReference(
            existing_ref=ref, reason=f'{type(self).__name__} cannot manage existing snapshots')

    def manage_existing_snapshot(self, snapshot: SnapshotRef, ref: dict) -> dict | None:
        """Make the object *ref* names *snapshot*'s; columns to store or None."""
        raise exception.ManageExistingInvalidReference(
            existing_ref=ref, reason=f'{type(self).__name__} cannot manage existing snapshots')

    def unmanage_snapshot(self, snapshot: SnapshotRef) -> None:
        """*snapshot* leaves cinderlike; the backend keeps its data."""
        return None

    def get_manageable_snapshots(self, cinder_snapshots: list[SnapshotRef], *, marker, limit,
                                 offset, sort_keys, sort_dirs) -> list[dict]:
        """The backend's snapshots (entries with `source_reference`), paged."""
        return []

    # --- snapshot export, for a backup host reading a snapshot (Cinder's) ------------

    def create_export_snapshot(self, snapshot: SnapshotRef, connector: dict) -> dict | None:
        """Export the snapshot to *connector*'s host (Cinder's); the provider_location and
        provider_auth columns to store, or None (nothing exported by default)."""
        return None

    def initialize_connection_snapshot(self, snapshot: SnapshotRef, connector: dict) -> dict:
        """Connection info through which *connector*'s host reads the snapshot.

        :raises VolumeDriverException: the driver cannot export snapshots (a backup of an
            in-use volume then fails with Cinder's backup device error).
        """
        raise exception.VolumeDriverException(
            message=f'{type(self).__name__} cannot export snapshots')

    def terminate_connection_snapshot(self, snapshot: SnapshotRef, connector: dict) -> None:
        """Stop letting *connector*'s host read the snapshot (nothing to revoke by default)."""
        return None

    def remove_export_snapshot(self, snapshot: SnapshotRef) -> None:
        """Undo what create_export_snapshot exported (nothing by default)."""
        return None

    # --- generic volume groups (Cinder's generic group fallback) ------------------------

    def create_group(self, group_id: str) -> dict | None:
        """A new group on this backend; columns to store or None. Members are plain
        volumes, so a generic group needs nothing on the backend by default."""
        LOG.debug('Group %s on %s: generic group, nothing to create', group_id,
                  self.backend_name)
        return None

    def update_group(self, group_id: str, add: list[VolumeRef], remove: list[VolumeRef]) -> None:
        """Members join or leave the group (the database records it after this returns)."""
        LOG.debug('Group %s on %s: generic group, %d volumes added, %d removed', group_id,
                  self.backend_name, len(add), len(remove))

    def create_group_snapshot(self, group_snapshot_id: str,
                              snapshots: list[SnapshotRef]) -> list[dict | None]:
        """Every member's snapshot as one operation; the columns to store per snapshot.

        By default one after the other: the manager holds every member's lock meanwhile,
        so no member is reverted, extended or deleted between two of them.
        """
        return [self.create_snapshot(snapshot) for snapshot in snapshots]

    def delete_group(self, group_id: str) -> None:
        """The group's members are already deleted; drop what create_group made."""
        LOG.debug('Group %s on %s: generic group, nothing to delete', group_id,
                  self.backend_name)

    # --- management plane (os-services freeze / thaw / failover_host) -------------------

    def freeze_backend(self, context) -> None:
        """The backend is frozen (read-only management); a driver may act on the array."""
        LOG.debug('Backend %s frozen: nothing to do on the driver side', self.backend_name)

    def thaw_backend(self, context) -> None:
        """The backend is thawed; raise VolumeDriverException to keep it frozen."""
        LOG.debug('Backend %s thawed: nothing to do on the driver side', self.backend_name)

    def failover_host(self, context, volumes: list, secondary_id=None):
        """Fail over to a replication target: (active_backend_id, volume updates).

        :raises UnableToFailOver: for a driver that does not replicate (all of ours).
        """
        raise exception.UnableToFailOver(
            reason=f'driver {type(self).__name__} does not support replication')
