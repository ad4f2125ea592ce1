"""What every scheduler filter is: per request, a predicate over pools (or nothing to check)."""

import abc


class BaseFilter(abc.ABC):
    """A filter named as in Cinder's scheduler_default_filters.

    `prepare` runs once per request and returns the per-pool predicate, or None when the
    request gives this filter nothing to check, so placement skips it for every pool.
    """

    name = ''

    @abc.abstractmethod
    def prepare(self, request):
        """Return `predicate(pool) -> bool` for *request*, or None to pass every pool."""

    def select(self, pools, request):
        """The pools that pass, in order; None when the filter has nothing to check."""
        predicate = self.prepare(request)
        return None if predicate is None else [pool for pool in pools if predicate(pool)]


class BatchFilter(BaseFilter):
    """A filter that decides for a whole list of pools at once.

    NOTE(perf): the filters every placement runs (the defaults) decide in one comprehension,
    without a Python call per pool; their per-pool predicate is the same code on one pool.
    """

    @abc.abstractmethod
    def select(self, pools, request):
        """The pools that pass, in order; None when the filter has nothing to check."""

    def prepare(self, request):
        if self.select((), request) is None:
            return None
        return lambda pool: bool(self.select((pool,), request))
