"""Helpers for scheduler unit tests: pools from capability reports, requests from dicts."""

from cinderlike.scheduler.backend_state import BackendState
from cinderlike.scheduler.request import PlacementRequest


def pool(host='node1@lvm', name='pool1', az='nova', cluster=None, **caps):
    """One PoolState from a one-pool report; *caps* override the pool's capability dict."""
    report = {'volume_backend_name': 'lvm', 'storage_protocol': 'iSCSI', 'vendor_name': 'Open',
              'driver_version': '1.0',
              'pools': [dict({'pool_name': name, 'total_capacity_gb': 100,
                              'free_capacity_gb': 100, 'allocated_capacity_gb': 0,
                              'reserved_percentage': 0}, **caps)]}
    backend = BackendState.from_report(host, report, availability_zone=az, cluster_name=cluster)
    return backend.pools[name]


def request(size=1, extra_specs=None, hints=None, request_spec=None, **props):
    """A PlacementRequest as FilterScheduler.prepare would build it."""
    spec = dict({'volume_properties': {'size': size}}, **(request_spec or {}))
    fp = dict({'size': size, 'volume_type': {'extra_specs': extra_specs or {}},
               'scheduler_hints': hints or {}}, **props)
    return PlacementRequest.build(spec, fp)


def passing(flt, pools, req):
    """The pools a filter lets through for *req* (all of them when it has nothing to check)."""
    predicate = flt.prepare(req)
    return list(pools) if predicate is None else [p for p in pools if predicate(p)]
