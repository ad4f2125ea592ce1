"""RetryFilter (Cinder's IgnoreAttemptedHostsFilter): skip pools this request already tried."""

from cinderlike.scheduler.filters import base


def attempted_backends(filter_properties) -> frozenset:
    """Pool-level backend ids listed in filter_properties['retry'] (empty when none)."""
    retry = filter_properties.get('retry') or {}
    return frozenset(retry.get('backends', retry.get('hosts')) or ())


class RetryFilter(base.BaseFilter):
    name = 'RetryFilter'

    def prepare(self, request):
        attempted = attempted_backends(request.filter_properties)
        if not attempted:
            return None
        return lambda pool: pool.backend_id not in attempted
