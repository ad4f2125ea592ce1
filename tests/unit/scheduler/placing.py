"""Helpers for scheduler service tests: backends that reported, volumes waiting, recorders."""

import datetime
import uuid

from cinderlike import capacity
from cinderlike.db import pools as db_pools
from cinderlike.db import services as db_services
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import utcnow
from cinderlike.volume import periodics

T0 = datetime.datetime(2026, 1, 1, 12, 0, 0)


def capabilities(*, pool='pool1', total=100, free=None, thin=False, ratio='1.0', reserved=0,
                 **extra):
    """A one-pool report as a volume driver sends it."""
    return {'volume_backend_name': 'lvm', 'storage_protocol': 'iSCSI', 'vendor_name': 'Open',
            'driver_version': '1.0',
            'pools': [dict({'pool_name': pool, 'total_capacity_gb': total,
                            'free_capacity_gb': total if free is None else free,
                            'reserved_percentage': reserved,
                            'max_over_subscription_ratio': ratio,
                            'thin_provisioning_support': thin,
                            'thick_provisioning_support': not thin}, **extra)]}


def record(db, host, caps, *, seq=1, at=T0, cluster_name=None):
    """What a volume service's report writes to the pools rows."""
    return db_pools.record_report(
        db, backend=host, cluster_name=cluster_name, seq=seq, gathered_at=at,
        pools=[periodics.pool_limits(f'{cluster_name or host}#{name}', cap)
               for name, cap in capacity.report_pools(caps)])


def add_backend(db, manager, host='n1@lvm', *, seq=1, az='nova', cluster_name=None, **caps):
    """An up volume service whose report reached the database and *manager*."""
    db_services.register(db, host=host, binary='cinder-volume', topic='cinder-volume',
                         availability_zone=az, cluster_name=cluster_name)
    report = capabilities(**caps)
    record(db, host, report, seq=seq, cluster_name=cluster_name)
    manager.update_service_capabilities(
        None, service_name='volume', host=host, capabilities=report,
        cluster_name=cluster_name, timestamp=utcnow().isoformat(), sequence=seq)


def add_volume(db, *, size=10, status='creating', host=None, project_id='p1'):
    volume_id = str(uuid.uuid4())
    # Past `creating`, a volume was launched by its backend (and so holds its claim).
    launched_at = None if status == 'creating' else utcnow()
    db_volumes.create(db, values={'id': volume_id, 'size': size, 'status': status,
                                  'host': host, 'project_id': project_id,
                                  'volume_type_id': 'vt', 'availability_zone': 'nova',
                                  'launched_at': launched_at})
    return volume_id


def spec(volume_id, *, size=10, extra_specs=None):
    """The request_spec the API casts with."""
    props = {'size': size, 'availability_zone': 'nova', 'project_id': 'p1'}
    return {'volume_id': volume_id, 'volume_properties': props, 'resource_properties': props,
            'volume_type': {'id': 'vt', 'name': 'vt', 'extra_specs': extra_specs or {}}}


class Recorder:
    """Stands in for an RPC client or a notifier: every method call is kept."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        def record_call(*args, **kwargs):
            self.calls.append((name, args, kwargs))
        return record_call
