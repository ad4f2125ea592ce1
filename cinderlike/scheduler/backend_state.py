"""The scheduler's view of one volume backend and its pools, built from a capability report.

`BackendState.from_report` expands a report the way Cinder's HostManager does (a `pools`
list, or one pool for a driver without pools) and precomputes what placement needs per pool.
"""

import dataclasses
import datetime
from collections.abc import Mapping

from cinderlike import capacity, exception
from cinderlike.scheduler import evaluator

# Cinder's protocol spellings (common/constants.py); a pool matches any variant of its own.
_PROTOCOL_VARIANTS = (
    ('iSCSI', 'iscsi'),
    ('FC', 'fibre_channel', 'fc'),
    ('NFS', 'nfs'),
    ('NVMe-oF', 'NVMeOF', 'nvmeof'),
)
# Backend-level fields copied into a pool report that lacks them (_append_backend_info).
_INHERITED = ('volume_backend_name', 'storage_protocol', 'vendor_name', 'driver_version')


def protocol_variants(protocol):
    """All spellings of *protocol* (itself alone when it has no known variants)."""
    if isinstance(protocol, str):
        for group in _PROTOCOL_VARIANTS:
            if protocol in group:
                return group
    return (protocol,)


def _compile(text):
    """Compile a reported function once per report; a broken one is kept as its error."""
    if text is None:
        return None
    try:
        return evaluator.compile_expression(str(text))
    except exception.EvaluatorParseException as exc:
        return exc


@dataclasses.dataclass(slots=True, eq=False)
class PoolState:
    """One pool: what placement filters and weighs on. Capacities are in GB."""

    host: str                      # 'host@backend' of the volume service
    pool_name: str
    cluster_name: str | None
    availability_zone: str | None
    capabilities: Mapping          # the pool's report merged with backend-level fields
    total_capacity_gb: float | str | None
    free_capacity_gb: float | str | None
    allocated_capacity_gb: float
    provisioned_capacity_gb: float
    reserved_percentage: float
    thin_provisioning_support: bool
    thick_provisioning_support: bool
    max_over_subscription_ratio: float  # resolved: 'auto' already computed
    multiattach: bool
    filter_function: str | None
    goodness_function: str | None
    updated_at: datetime.datetime | None
    seq: int | None
    volume_backend_name: str | None = None
    vendor_name: str | None = None
    driver_version: str | None = None
    storage_protocol: str | None = None
    qos_support: bool = False
    filter_expression: object = dataclasses.field(default=None, init=False, repr=False)
    goodness_expression: object = dataclasses.field(default=None, init=False, repr=False)
    fixed_capacity: capacity.PoolCapacity = dataclasses.field(default=None, init=False,
                                                              repr=False)
    # Verdicts that depend only on this report and the request's type (CapabilitiesFilter).
    match_cache: dict = dataclasses.field(default_factory=dict, init=False, repr=False)
    # CapacityFilter's fit and CapacityWeigher's weight (None: unlimited) for a thin and a
    # thick request, from the current claims: set by refresh_room(), read per placement.
    fit_thin: float = dataclasses.field(default=None, init=False, repr=False)
    fit_thick: float = dataclasses.field(default=None, init=False, repr=False)
    weight_thin: float | None = dataclasses.field(default=None, init=False, repr=False)
    weight_thick: float | None = dataclasses.field(default=None, init=False, repr=False)
    ratio_base: float | None = dataclasses.field(default=None, init=False, repr=False)

    def __post_init__(self):
        # NOTE(perf): compiled once per report (and shared by text), never per placement.
        self.filter_expression = _compile(self.filter_function)
        self.goodness_expression = _compile(self.goodness_function)
        self.fixed_capacity = capacity.PoolCapacity(
            total=self.total_capacity_gb, free=self.free_capacity_gb,
            reserved_percentage=self.reserved_percentage,
            thin_support=self.thin_provisioning_support,
            ratio=self.max_over_subscription_ratio)
        self.ratio_base = self.fixed_capacity.ratio_base  # see PoolCapacity.fit
        self.refresh_room()

    def refresh_room(self) -> None:
        """Recompute fit_*/weight_* after provisioned or free capacity changed.

        NOTE(perf): they depend on the claims but not on the request's size, so they are
        computed when a claim changes (set_claims, consume) instead of for every pool of
        every placement. Change those two fields only through these methods.
        """
        fixed, provisioned, free = (self.fixed_capacity, self.provisioned_capacity_gb,
                                    self.free_capacity_gb)
        self.fit_thin = fixed.fit(provisioned, free, True)
        self.fit_thick = fixed.fit(provisioned, free, False)
        if fixed.unlimited:
            self.weight_thin = self.weight_thick = None
        else:
            self.weight_thin = fixed.virtual_free(provisioned, free, True)
            self.weight_thick = fixed.virtual_free(provisioned, free, False)

    def set_claims(self, allocated_gb: float, provisioned_gb: float) -> None:
        """Take the database's claims for this pool (the scheduler's pools view)."""
        if (allocated_gb, provisioned_gb) != (self.allocated_capacity_gb,
                                              self.provisioned_capacity_gb):
            self.allocated_capacity_gb, self.provisioned_capacity_gb = allocated_gb, provisioned_gb
            self.refresh_room()

    @property
    def backend_id(self) -> str:
        """'<cluster or host>#<pool>': Cinder's pool-level backend_id and get_pools name."""
        return f'{self.cluster_name or self.host}#{self.pool_name}'

    @property
    def volume_host(self) -> str:
        """What volumes.host is set to when a volume is placed here."""
        return f'{self.host}#{self.pool_name}'

    @property
    def volume_cluster_name(self) -> str | None:
        """What volumes.cluster_name is set to when a volume is placed here."""
        return f'{self.cluster_name}#{self.pool_name}' if self.cluster_name else None

    def limit_gb(self, thin: bool) -> float | None:
        """The most that may be provisioned here for a thin or thick request (None: unlimited)."""
        return capacity.pool_limit_gb(
            total=self.total_capacity_gb, free=self.free_capacity_gb,
            reserved_percentage=self.reserved_percentage,
            thin_support=self.thin_provisioning_support,
            ratio=self.max_over_subscription_ratio, thin=thin)

    def consume(self, size_gb: float, now: datetime.datetime | None = None) -> None:
        """Count a placement in this in-memory view until the next report (consume_from_volume)."""
        self.allocated_capacity_gb += size_gb
        self.provisioned_capacity_gb += size_gb
        if not capacity.is_unlimited(self.free_capacity_gb) and self.free_capacity_gb is not None:
            self.free_capacity_gb -= size_gb
        if now is not None:
            self.updated_at = now
        self.refresh_room()

    def stats(self) -> dict:
        """The `stats` namespace that filter/goodness functions see (Cinder's host stats)."""
        return {
            'host': self.volume_host, 'cluster_name': self.volume_cluster_name,
            'backend_id': self.backend_id, 'volume_backend_name': self.volume_backend_name,
            'vendor_name': self.vendor_name, 'driver_version': self.driver_version,
            'storage_protocol': self.storage_protocol, 'QoS_support': self.qos_support,
            'total_capacity_gb': self.total_capacity_gb,
            'allocated_capacity_gb': self.allocated_capacity_gb,
            'free_capacity_gb': self.free_capacity_gb,
            'reserved_percentage': self.reserved_percentage, 'updated': self.updated_at,
        }

    @classmethod
    def from_capability(cls, cap, *, host, pool_name, cluster_name=None, availability_zone=None,
                        updated_at=None, seq=None, default_ratio='20.0'):
        """Build a pool from its (already merged) capability dict, as PoolState does."""
        allocated = capacity.number(cap.get('allocated_capacity_gb', 0)) or 0
        provisioned = capacity.number(cap.get('provisioned_capacity_gb', allocated))
        total = capacity.number(cap.get('total_capacity_gb', 0))
        free = capacity.number(cap.get('free_capacity_gb', 0))
        thin_support = bool(cap.get('thin_provisioning_support', False))
        ratio = capacity.reported_ratio(cap, default=default_ratio)
        protocol = cap.get('storage_protocol')
        return cls(
            host=host, pool_name=pool_name, cluster_name=cluster_name,
            availability_zone=availability_zone, capabilities=cap,
            total_capacity_gb=total, free_capacity_gb=free,
            allocated_capacity_gb=allocated, provisioned_capacity_gb=provisioned or 0,
            reserved_percentage=capacity.number(cap.get('reserved_percentage', 0)) or 0,
            thin_provisioning_support=thin_support,
            thick_provisioning_support=bool(cap.get('thick_provisioning_support', False)),
            max_over_subscription_ratio=ratio, multiattach=bool(cap.get('multiattach', False)),
            filter_function=cap.get('filter_function'),
            goodness_function=cap.get('goodness_function'),
            updated_at=updated_at, seq=seq, volume_backend_name=cap.get('volume_backend_name'),
            vendor_name=cap.get('vendor_name'), driver_version=cap.get('driver_version'),
            storage_protocol=protocol[0] if isinstance(protocol, list | tuple) and protocol
            else protocol,
            qos_support=cap.get('QoS_support', False))


@dataclasses.dataclass(slots=True, eq=False)
class BackendState:
    """One volume backend ('host@backend', or its cluster) and the pools it reported."""

    host: str
    cluster_name: str | None
    availability_zone: str | None
    capabilities: Mapping          # the backend-level report, without `pools`
    pools: dict                    # pool name -> PoolState
    updated_at: datetime.datetime | None
    seq: int | None

    @property
    def backend_id(self) -> str:
        return self.cluster_name or self.host

    @classmethod
    def from_report(cls, host, report, *, cluster_name=None, availability_zone=None,
                    updated_at=None, seq=None, default_ratio='20.0'):
        """Expand one volume service report into a backend with its pools.

        A report with a `pools` list gives one PoolState per entry, each merged with the
        backend-level name/protocol/vendor/version/functions; a report without `pools` is one
        pool named after volume_backend_name (or '_pool0'); an empty list gives no pools.
        """
        report = dict(report or {})
        single = report.get('pools') is None
        expanded = capacity.report_pools(report)
        report.pop('pools', None)
        az = availability_zone or report.get('availability_zone')
        common = dict(host=host, cluster_name=cluster_name, availability_zone=az,
                      updated_at=updated_at, seq=seq, default_ratio=default_ratio)
        pools = {}
        for name, pool_report in expanded:
            cap = (_with_protocol_variants(report) if single
                   else _merge_backend_info(dict(pool_report), report))
            pools[name] = PoolState.from_capability(cap, pool_name=name, **common)
        return cls(host=host, cluster_name=cluster_name, availability_zone=az,
                   capabilities=report, pools=pools, updated_at=updated_at, seq=seq)


def _merge_backend_info(cap, backend):
    for key in _INHERITED:
        if not cap.get(key):
            cap[key] = backend.get(key)
    for key in ('filter_function', 'goodness_function'):
        if key not in cap and key in backend:
            cap[key] = backend[key]
    return _with_protocol_variants(cap)


def _with_protocol_variants(cap):
    """Expose storage_protocol as the list of its variants, so extra specs match any spelling."""
    variants = protocol_variants(cap.get('storage_protocol'))
    if len(variants) > 1:
        cap = dict(cap, storage_protocol=list(variants))
    return cap
