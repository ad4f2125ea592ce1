"""Periodic work of a volume service (cinderlike-volume): capability reports to the schedulers."""

import copy

from oslo_log import log as logging

from cinderlike.periodic import periodic

LOG = logging.getLogger(__name__)


class VolumePeriodics:
    """Mixed into VolumeManager, which provides driver, initialized, host and _publisher."""

    @periodic(spacing_opt='backend_stats_polling_interval')
    def _periodic_report_capabilities(self, context):
        self._report_capabilities(context)

    def _report_capabilities(self, context) -> dict | None:
        """Gather the driver's stats and fan them out to the schedulers in one step."""
        if not self.initialized:
            LOG.warning('Update driver status failed: backend %s is uninitialized.', self.host)
            return None
        return self._publisher.publish(context, self._gather_capabilities)

    def _gather_capabilities(self) -> dict:
        # NOTE(stats): a copy, so a driver that keeps and mutates its stats dict cannot
        # change a report after it was stamped.
        stats = copy.deepcopy(self.driver.get_volume_stats(refresh=True))
        stats.setdefault('volume_backend_name', self.driver.backend_name)
        stats['backend_state'] = 'up'
        return stats
