"""CapabilitiesFilter: a pool passes when its capabilities satisfy the type's extra specs."""

import itertools

from cinderlike.scheduler.filters import base, extra_specs_ops
from cinderlike.states.volumes import AttachStatus

_CACHE_LIMIT = 64


def _requirements(extra_specs):
    """(key, rest of the nested path, matcher) per spec.

    Specs scoped to anything but `capabilities:` are vendor specs and are skipped.
    """
    out = []
    for key, req in extra_specs.items():
        scope = key.split(':')
        if len(scope) > 1 and scope[0] != 'capabilities':
            continue
        if scope[0] == 'capabilities':
            del scope[0]
        out.append((scope[0], tuple(scope[1:]), extra_specs_ops.compile_requirement(req)))
    return out


class CapabilitiesFilter(base.BatchFilter):
    name = 'CapabilitiesFilter'

    def select(self, pools, request):
        checks = _requirements(request.extra_specs)
        online_extend = _online_extend_check(request)
        if not checks and online_extend is None:
            return None
        # NOTE(perf): the verdict depends only on the pool's report and these specs, so it is
        # kept on the pool (a new report is a new PoolState) and reused by later requests.
        try:
            key = (tuple(sorted(request.extra_specs.items())), online_extend is not None)
        except TypeError:  # unhashable or unorderable spec values: no caching
            return [p for p in pools if _satisfies(p.capabilities, checks, online_extend)]
        verdicts = [pool.match_cache.get(key) for pool in pools]
        if None in verdicts:
            verdicts = [_remember(pool, key, _satisfies(pool.capabilities, checks, online_extend))
                        if verdict is None else verdict
                        for pool, verdict in zip(pools, verdicts, strict=True)]
        return list(itertools.compress(pools, verdicts))


def _remember(pool, key, verdict):
    cache = pool.match_cache
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = verdict
    return verdict


def _satisfies(caps, checks, online_extend):
    if online_extend is not None and not online_extend(caps):
        return False
    for key, rest, matcher in checks:
        try:
            value = caps[key]
            for part in rest:
                value = value[part]
        except (TypeError, KeyError, IndexError):
            return False  # the backend does not report this capability
        if not matcher(value):
            return False
    return True


def _online_extend_check(request):
    """Extending a volume that is not detached needs a backend that supports online extend.

    Backends are assumed to support it unless they report online_extend_support: False.
    """
    if request.request_spec.get('operation') != 'extend_volume':
        return None
    if request.volume_properties.get('attach_status') == AttachStatus.DETACHED:
        return None
    return lambda caps: caps.get('online_extend_support', True) is not False
