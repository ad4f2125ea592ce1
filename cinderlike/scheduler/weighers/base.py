"""Weighing as Cinder's OrderedHostWeightHandler: normalise each weigher, scale, sum, sort."""

import collections.abc
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


def normalize(weights, minval, maxval, multiplier=1.0):
    """Scale to 0..1 between *minval* and *maxval*, times *multiplier*; all equal gives 0."""
    minval, maxval = float(minval), float(maxval)
    if minval == maxval:
        return [multiplier * 0.0] * len(weights)
    span = maxval - minval
    # NOTE(perf): the multiplier in the same pass, with the same arithmetic as after it.
    return [multiplier * ((w - minval) / span) for w in weights]


def weigh(weighers, pools, request) -> list:
    """Return WeighedPools sorted by descending weight; ties keep the pools' order."""
    if not pools:
        return []
    totals = None
    for weigher in weighers:
        raw = weigher.weights(pools, request)
        minval, maxval = weigher.bounds(raw)
        scaled = normalize(raw, minval, maxval, weigher.multiplier)
        totals = scaled if totals is None else list(map(float.__add__, totals, scaled))
    if totals is None:
        totals = [0.0] * len(pools)
    order = sorted(range(len(pools)), key=totals.__getitem__, reverse=True)
    return Ranking(pools, totals, order)


class Ranking(collections.abc.Sequence):
    """WeighedPools best first, each built when it is read.

    NOTE(perf): a placement nearly always claims on its first candidate; building a tuple
    for each of thousands of pools cost more than filtering them all.
    """

    __slots__ = ('_pools', '_totals', '_order')

    def __init__(self, pools, totals, order):
        self._pools, self._totals, self._order = pools, totals, order

    def __len__(self):
        return len(self._order)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._order)))]
        i = self._order[index]
        return WeighedPool(self._pools[i], self._totals[i])

    def __eq__(self, other):
        if not isinstance(other, collections.abc.Sequence):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = None
