"""SameBackendFilter / DifferentBackendFilter: the same_host / different_host hints.

The volumes' locations come from a callable injected by the scheduler service (it reads the
database), so this module stays free of DB imports.
"""

from oslo_utils import uuidutils

from cinderlike.scheduler.filters import base


def _hinted_ids(hint):
    """The hint as a list of volume ids; None when any entry does not look like a uuid."""
    if isinstance(hint, list):
        return hint if all(uuidutils.is_uuid_like(u) for u in hint) else None
    if uuidutils.is_uuid_like(hint):
        return [hint]
    return None


def _on_pool(location, pool):
    """A volume's 'host@backend#pool' (or cluster) matches this pool, or its backend if legacy."""
    host, cluster_name = location
    if pool.cluster_name:
        return cluster_name in (pool.volume_cluster_name, pool.cluster_name)
    return host in (pool.volume_host, pool.host)


class _AffinityFilter(base.BaseFilter):
    hint = ''
    same = True

    def __init__(self, volume_locations):
        """*volume_locations(context, ids)* -> [(host, cluster_name)] of those live volumes."""
        self._locations = volume_locations

    def prepare(self, request):
        if self.hint not in request.scheduler_hints:
            return None
        ids = _hinted_ids(request.scheduler_hints[self.hint])
        if ids is None:
            # NOTE(affinity): a malformed hint fails the request rather than being ignored.
            return lambda pool: False
        if not ids:
            return None
        locations = list(self._locations(request.context, ids))
        same = self.same
        return lambda pool: any(_on_pool(loc, pool) for loc in locations) is same


class SameBackendFilter(_AffinityFilter):
    name = 'SameBackendFilter'
    hint = 'same_host'
    same = True


class DifferentBackendFilter(_AffinityFilter):
    name = 'DifferentBackendFilter'
    hint = 'different_host'
    same = False
