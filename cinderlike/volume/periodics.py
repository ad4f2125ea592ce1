"""Periodic work of a volume service (cinderlike-volume): capability reports to the schedulers.

Each report is gathered, written to the pools rows (limits only) and fanned out in one step,
under one sequence number; then a `capacity.pool` notification per pool tells billing and
monitoring what the database holds (the claimed amount is the database's, not the report's).
"""

import copy

from oslo_log import log as logging

from cinderlike import capacity, notifications
from cinderlike import context as context_mod
from cinderlike.db import pools as db_pools
from cinderlike.periodic import periodic

LOG = logging.getLogger(__name__)


class VolumePeriodics:
    """Mixed into VolumeManager, which provides driver, initialized, host, cluster_name, db,
    configuration, capacity_notifier and _publisher."""

    @periodic(spacing_opt='backend_stats_polling_interval')
    def _periodic_report_capabilities(self, context):
        self._report_capabilities(context)

    def _report_capabilities(self, context) -> dict | None:
        """Gather the driver's stats and fan them out to the schedulers in one step."""
        if not self.initialized:
            LOG.warning('Update driver status failed: backend %s is uninitialized.', self.host)
            return None
        return self._publisher.publish(context, self._gather_capabilities, self._record_pools)

    def _gather_capabilities(self) -> dict:
        # NOTE(stats): a copy, so a driver that keeps and mutates its stats dict cannot
        # change a report after it was stamped.
        stats = copy.deepcopy(self.driver.get_volume_stats(refresh=True))
        stats.setdefault('volume_backend_name', self.driver.backend_name)
        stats['backend_state'] = 'up'
        return stats

    def _record_pools(self, capabilities, *, sequence, gathered_at):
        """Store this report's pool limits, so every scheduler's claims have a ceiling."""
        ratio = self.configuration.max_over_subscription_ratio
        limits = [pool_limits(f'{self.cluster_name or self.host}#{name}', cap,
                              default_ratio=ratio)
                  for name, cap in capacity.report_pools(capabilities)]
        db_pools.record_report(
            self.db, backend=self.host, cluster_name=self.cluster_name, pools=limits,
            seq=sequence, gathered_at=gathered_at)
        self._notify_capacity([pool['name'] for pool in limits])

    def _notify_capacity(self, names: list[str]) -> None:
        """`capacity.pool` for each reported pool, as Cinder's notify_about_capacity_usage."""
        if not self.capacity_notifier.is_enabled():
            return
        ctx = context_mod.get_admin_context()
        for row in db_pools.get_all(self.db, names=names):
            self.capacity_notifier.info(ctx, 'capacity.pool', notifications.capacity_usage(
                row, virtual_free=_virtual_free(row)))


def _virtual_free(row):
    """Virtual free capacity of a pools row; 'unknown' when the pool reports no limit."""
    if row.capacity_limit_gb is None or row.free_capacity_gb is None:
        return 'unknown'
    return capacity.virtual_free_gb(row.capacity_limit_gb, row.free_capacity_gb,
                                    row.provisioned_capacity_gb or 0, row.thin_provisioning)


def _finite(value):
    return None if value is None or capacity.is_unlimited(value) else float(value)


def pool_limits(name: str, cap: dict, *, default_ratio='20.0') -> dict:
    """What the pools row *name* ('<cluster or host>#<pool>') keeps of a pool's report;
    `capacity_limit_gb` is CapacityFilter's ceiling (thin when the pool supports it), NULL
    when the pool is not limited."""
    total = capacity.number(cap.get('total_capacity_gb', 0))
    free = capacity.number(cap.get('free_capacity_gb', 0))
    reserved = capacity.number(cap.get('reserved_percentage', 0)) or 0
    thin_support = bool(cap.get('thin_provisioning_support', False))
    ratio = capacity.reported_ratio(cap, default=default_ratio)
    reported = cap.get('max_over_subscription_ratio')
    return {
        'name': name,
        'total_capacity_gb': _finite(total),
        'free_capacity_gb': _finite(free),
        'reserved_percentage': int(reserved),
        'thin_provisioning': thin_support,
        'max_over_subscription_ratio': str(reported if reported is not None else ratio),
        'capacity_limit_gb': capacity.pool_limit_gb(
            total=total, free=free, reserved_percentage=reserved, thin_support=thin_support,
            ratio=ratio, thin=True),
    }
