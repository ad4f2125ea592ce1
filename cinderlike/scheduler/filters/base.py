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
