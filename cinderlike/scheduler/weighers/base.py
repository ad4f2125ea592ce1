"""Weighing as Cinder's OrderedHostWeightHandler: normalise each weigher, scale, sum, sort."""

import itertools
import typing


class WeighedPool(typing.NamedTuple):
    """A pool and its total weight; the scheduler's candidate list holds these, best first."""

    obj: object
    weight: float


class BaseWeigher:
    """A weigher named as in scheduler_default_weighers, with its multiplier."""

    name = ''

    def __init__(self, multiplier: float = 1.0):
        self.multiplier = multiplier

    def weights(self, pools, request) -> list:
        """Raw weights, one per pool; higher wins before the multiplier is applied."""
        return [self.weigh_one(pool, request) for pool in pools]

    def weigh_one(self, pool, request) -> float:
        raise NotImplementedError

    def bounds(self, weights):
        """(min, max) used to normalise; a weigher may fix them (GoodnessWeigher 0..100)."""
        return min(weights), max(weights)


def normalize(weights, minval, maxval):
    """Scale to 0..1 between *minval* and *maxval*; all equal gives 0 for everyone."""
    minval, maxval = float(minval), float(maxval)
    if minval == maxval:
        return [0.0] * len(weights)
    span = maxval - minval
    return [(w - minval) / span for w in weights]


def weigh(weighers, pools, request) -> list:
    """Return WeighedPools sorted by descending weight; ties keep the pools' order."""
    if not pools:
        return []
    totals = None
    for weigher in weighers:
        raw = weigher.weights(pools, request)
        minval, maxval = weigher.bounds(raw)
        scaled = [weigher.multiplier * value for value in normalize(raw, minval, maxval)]
        totals = scaled if totals is None else list(map(float.__add__, totals, scaled))
    if totals is None:
        totals = [0.0] * len(pools)
    order = sorted(range(len(pools)), key=totals.__getitem__, reverse=True)
    # NOTE(perf): tuple.__new__ builds the named tuples in C, without WeighedPool.__new__.
    pairs = zip([pools[i] for i in order], [totals[i] for i in order], strict=True)
    return list(map(tuple.__new__, itertools.repeat(WeighedPool), pairs))
