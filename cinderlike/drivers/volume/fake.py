"""In-memory driver for cinderlike-all, tests and benchmarks (cinderlike-volume process).

Capacity, thin or thick provisioning, per-operation latency and failure injection come from
the backend's options, so a test or a benchmark shapes each backend from its config section.
"""

import threading
import time

from oslo_config import cfg

from cinderlike import exception
from cinderlike.drivers.volume import base, manageable

OPERATIONS = ('create_volume', 'create_cloned_volume', 'delete_volume', 'extend_volume',
              'create_export', 'ensure_export', 'remove_export', 'initialize_connection',
              'terminate_connection')

DRIVER_OPTS = [
    cfg.IntOpt('fake_total_capacity_gb', default=1000, min=1,
               help='Capacity the fake driver reports, in GiB.'),
    cfg.BoolOpt('fake_thin_provisioning', default=True,
                help='Whether the fake driver reports thin (True) or thick (False) '
                     'provisioning. A thick fake backend refuses volumes that do not fit.'),
    cfg.BoolOpt('fake_refuse_overcommit', default=True,
                help='Whether a thick fake backend refuses volumes that do not fit. False '
                     'makes it accept everything, so that only the scheduler\'s claims '
                     'keep its pool from being over-committed (benchmarks/overcommit.py).'),
    cfg.DictOpt('fake_latency', default={},
                help='Seconds each operation of the fake driver takes, e.g. '
                     f'"create_volume:0.05,delete_volume:0.01". Operations: '
                     f'{", ".join(OPERATIONS)}.'),
    cfg.ListOpt('fake_fail', default=[],
                help='Operations of the fake driver that fail with a backend error '
                     '(failure injection), e.g. "create_volume,extend_volume". '
                     '"delete_volume_busy" makes deletes fail with VolumeIsBusy, '
                     '"delete_snapshot_busy" snapshot deletes with SnapshotIsBusy.'),
]


class FakeDriver(base.VolumeDriver):
    """Keeps volumes as sizes in a dict; nothing leaves the process."""

    DRIVER_OPTS = DRIVER_OPTS
    SUPPORTS_ACTIVE_ACTIVE = True

    def __init__(self, configuration, *, host, sleep=time.sleep):
        super().__init__(configuration, host=host)
        self._volumes: dict[str, int] = {}
        # snapshot name -> the volume name it was taken of
        self._snapshots: dict[str, str] = {}
        # volume name -> the back-end QoS specs it was created with (what an array applies)
        self.qos: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._sleep = sleep

    def _operate(self, operation: str, volume):
        """Latency, then the injected failure if *operation* is configured to fail."""
        latency = float(self.configuration.fake_latency.get(operation, 0))
        if latency:
            self._sleep(latency)
        failing = self.configuration.fake_fail
        if operation in failing:
            raise exception.VolumeBackendAPIException(
                data=f'injected failure of {operation} for {volume.name}')
        if operation == 'delete_volume' and 'delete_volume_busy' in failing:
            raise exception.VolumeIsBusy(volume_name=volume.name)
        if operation == 'delete_snapshot' and 'delete_snapshot_busy' in failing:
            raise exception.SnapshotIsBusy(snapshot_name=volume.name)

    def do_setup(self, context):
        """Nothing to connect to: the store is this process's memory."""

    def check_for_setup_error(self):
        """The in-memory store is always usable."""

    def _allocate(self, volume: base.VolumeRef, grow_by: int):
        with self._lock:
            used = sum(self._volumes.values())
            total = self.configuration.fake_total_capacity_gb
            if (not self.configuration.fake_thin_provisioning and
                    self.configuration.fake_refuse_overcommit and used + grow_by > total):
                raise exception.VolumeBackendAPIException(
                    data=f'not enough space for {volume.name}: {grow_by} GiB wanted, '
                         f'{total - used} GiB free')
            self._volumes[volume.name] = self._volumes.get(volume.name, 0) + grow_by

    def create_volume(self, volume):
        self._operate('create_volume', volume)
        self._allocate(volume, volume.size)
        if volume.qos_specs:
            self.qos[volume.name] = dict(volume.qos_specs['specs'])
        return {'provider_location': f'fake://{self.host}/{volume.name}'}

    def create_cloned_volume(self, volume, source):
        self._operate('create_cloned_volume', volume)
        if source.name not in self._volumes:
            raise exception.VolumeBackendAPIException(data=f'no source volume {source.name}')
        self._allocate(volume, volume.size)
        return {'provider_location': f'fake://{self.host}/{volume.name}'}

    def delete_volume(self, volume):
        self._operate('delete_volume', volume)
        with self._lock:
            self._volumes.pop(volume.name, None)

    def retype(self, volume, new_type, diff):
        """The fake backend's volumes carry nothing of their type: any type fits."""
        self._operate('retype', volume)
        return volume.name in self._volumes

    def extend_volume(self, volume, new_size):
        self._operate('extend_volume', volume)
        current = self._volumes.get(volume.name)
        if current is None:
            raise exception.VolumeBackendAPIException(data=f'no volume {volume.name}')
        self._allocate(volume, new_size - current)

    def create_snapshot(self, snapshot):
        self._operate('create_snapshot', snapshot)
        with self._lock:
            if snapshot.volume.name not in self._volumes:
                raise exception.VolumeBackendAPIException(
                    data=f'no volume {snapshot.volume.name}')
            self._snapshots[snapshot.name] = snapshot.volume.name
        return {'provider_location': f'fake://{self.host}/{snapshot.name}'}

    def delete_snapshot(self, snapshot):
        self._operate('delete_snapshot', snapshot)
        with self._lock:
            self._snapshots.pop(snapshot.name, None)

    def create_volume_from_snapshot(self, volume, snapshot):
        self._operate('create_volume_from_snapshot', volume)
        if snapshot.name not in self._snapshots:
            raise exception.VolumeBackendAPIException(data=f'no snapshot {snapshot.name}')
        self._allocate(volume, volume.size)
        return {'provider_location': f'fake://{self.host}/{volume.name}'}

    def revert_to_snapshot(self, volume, snapshot):
        self._operate('revert_to_snapshot', volume)
        if self._snapshots.get(snapshot.name) != volume.name:
            raise exception.VolumeBackendAPIException(
                data=f'no snapshot {snapshot.name} of {volume.name}')

    def has_snapshot(self, snapshot: base.SnapshotRef) -> bool:
        """Whether the backend holds *snapshot* (tests check with it)."""
        return snapshot.name in self._snapshots

    def create_export(self, volume, connector):
        self._operate('create_export', volume)

    def ensure_export(self, volume):
        self._operate('ensure_export', volume)

    def remove_export(self, volume):
        self._operate('remove_export', volume)

    def initialize_connection(self, volume, connector):
        self._operate('initialize_connection', volume)
        return {'driver_volume_type': 'fake',
                'data': {'volume_id': volume.id, 'access_mode': 'rw'}}

    def terminate_connection(self, volume, connector):
        self._operate('terminate_connection', volume)

    # --- manage / unmanage: what an unmanage left in memory can be managed again --------

    def _known(self, ref, store: dict) -> str:
        name = ref.get('source-name') if isinstance(ref, dict) else None
        if name not in store:
            raise exception.ManageExistingInvalidReference(
                existing_ref=ref, reason='Specified object does not exist.')
        return name

    def manage_existing_get_size(self, volume, ref):
        return self._volumes[self._known(ref, self._volumes)]

    def manage_existing(self, volume, ref):
        with self._lock:
            old = self._known(ref, self._volumes)
            self._volumes[volume.name] = self._volumes.pop(old)
            # The snapshots of the object are now the new volume's.
            for snapshot, origin in self._snapshots.items():
                if origin == old:
                    self._snapshots[snapshot] = volume.name
        return {'provider_location': f'fake://{self.host}/{volume.name}'}

    def get_manageable_volumes(self, cinder_volumes, *, marker, limit, offset, sort_keys,
                               sort_dirs):
        managed = {v.name: v.id for v in cinder_volumes}
        with self._lock:
            entries = [manageable.entry(name, size, cinder_id=managed.get(name))
                       for name, size in self._volumes.items()]
        return manageable.paginate(entries, marker=marker, limit=limit, offset=offset,
                                   sort_keys=sort_keys, sort_dirs=sort_dirs)

    def manage_existing_snapshot_get_size(self, snapshot, ref):
        return self._volumes.get(self._snapshots[self._known(ref, self._snapshots)],
                                 snapshot.volume_size)

    def manage_existing_snapshot(self, snapshot, ref):
        with self._lock:
            self._snapshots[snapshot.name] = self._snapshots.pop(
                self._known(ref, self._snapshots))
        return {'provider_location': f'fake://{self.host}/{snapshot.name}'}

    def get_manageable_snapshots(self, cinder_snapshots, *, marker, limit, offset, sort_keys,
                                 sort_dirs):
        managed = {s.name: s.id for s in cinder_snapshots}
        with self._lock:
            entries = [manageable.entry(name, self._volumes.get(origin, 0),
                                        cinder_id=managed.get(name), source=origin,
                                        snapshot=True)
                       for name, origin in self._snapshots.items()]
        return manageable.paginate(entries, marker=marker, limit=limit, offset=offset,
                                   sort_keys=sort_keys, sort_dirs=sort_dirs)

    def has_volume(self, volume: base.VolumeRef) -> bool:
        """Whether the backend holds *volume* (tests and benchmarks check with it)."""
        return volume.name in self._volumes

    def get_volume_stats(self, refresh=False) -> dict:
        conf = self.configuration
        total = conf.fake_total_capacity_gb
        with self._lock:
            allocated = sum(self._volumes.values())
        thin = conf.fake_thin_provisioning
        return {
            'volume_backend_name': self.backend_name,
            'vendor_name': 'cinderlike',
            'driver_version': self.VERSION,
            'storage_protocol': 'fake',
            'pools': [{
                'pool_name': self.backend_name,
                'total_capacity_gb': total,
                'free_capacity_gb': total - allocated,
                'allocated_capacity_gb': allocated,
                'provisioned_capacity_gb': allocated,
                'reserved_percentage': conf.reserved_percentage,
                'max_over_subscription_ratio': conf.max_over_subscription_ratio,
                'thin_provisioning_support': thin,
                'thick_provisioning_support': not thin,
                'multiattach': True,
                'QoS_support': False,
                # NOTE(groups): a group snapshot is taken under every member's lock.
                'consistent_group_snapshot_enabled': True,
            }],
        }
