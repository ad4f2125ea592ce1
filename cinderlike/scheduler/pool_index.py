"""Pools kept in CapacityWeigher order, so a placement visits the best few, not every pool.

The default placement (per-pool filters, CapacityWeigher alone, spreading) ranks the passing
pools by their virtual free capacity, which only a claim, a report or a fresh read of the
claims changes. `PoolIndex` holds the pools of one view sorted by that weight (for a thin and
a thick request); `ranked()` walks it from the top, filtering growing runs of pools as it goes,
and yields the candidates in the order and with the weights of the full scan
(weighers/base.py `weigh` over every passing pool), as far as they are read.
"""

import bisect
import collections.abc
import itertools
import math
import threading

from cinderlike.scheduler.weighers import base as weigh_base

# Pools filtered at once when the walk needs more; doubled each time it does.
FIRST_RUN = 16


def raw_weight(pool, thin: bool) -> float:
    """CapacityWeigher's raw weight when spreading: virtual free capacity, unlimited -1."""
    weight = pool.weight_thin if thin else pool.weight_thick
    return -1 if weight is None else weight


def raw_weights(pool) -> dict[bool, float]:
    """{thin: raw weight} of *pool* now, for `PoolIndex.moved` after a change."""
    return {thin: raw_weight(pool, thin) for thin in (True, False)}


class PoolIndex:
    """The pools of one view sorted by raw weight, best first; the view's order breaks ties.

    `moved()` must be told of every weight change of an indexed pool (a claim counted in the
    view); a new view builds a new index. `usable` is False once a weight is not finite
    (CapacityWeigher then substitutes values that depend on every pool).
    """

    def __init__(self, pools):
        self._pools = list(pools)
        self._position = {id(pool): i for i, pool in enumerate(self._pools)}
        self._lock = threading.Lock()
        # NOTE(snapshot): an order is replaced, never changed in place, so a walk holding one
        # reads one consistent ranking while claims move pools in the next.
        self._orders = {thin: sorted((-raw_weight(pool, thin), i)
                                     for i, pool in enumerate(self._pools))
                        for thin in (True, False)}
        self.usable = all(math.isfinite(key) for order in self._orders.values()
                          for key, _ in order)

    def moved(self, pool, before: dict[bool, float]) -> None:
        """Re-place *pool*, whose raw weights were *before* (`raw_weights`) until now."""
        i = self._position.get(id(pool))
        if i is None:
            return
        with self._lock:
            for thin, old in before.items():
                order = list(self._orders[thin])
                at = bisect.bisect_left(order, (-old, i))
                if at < len(order) and order[at] == (-old, i):
                    del order[at]
                else:  # NOTE(safety): changed behind our back; find it the slow way.
                    order = [key for key in order if key[1] != i]
                new = -raw_weight(pool, thin)
                self.usable = self.usable and math.isfinite(new)
                bisect.insort(order, (new, i))
                self._orders[thin] = order

    def order(self, thin: bool) -> list[tuple[float, int]]:
        """(-raw weight, position) of every pool, best first: a snapshot."""
        with self._lock:
            return self._orders[thin]

    def pool(self, position: int):
        return self._pools[position]


class PoolView(list):
    """The host manager's pools view: a list of PoolStates, with its PoolIndex built on
    first use (placements that cannot use it never pay for it)."""

    def __init__(self, pools=()):
        super().__init__(pools)
        self._index = None
        self._index_lock = threading.Lock()

    @property
    def weight_index(self) -> PoolIndex:
        with self._index_lock:
            if self._index is None:
                self._index = PoolIndex(self)
            return self._index

    @property
    def built_index(self) -> PoolIndex | None:
        """The index if a placement built it (what a claim must keep up to date)."""
        return self._index


def _passing(index, order, start, stop, select):
    """The passing pools of order[start:stop] with their keys, top down, filtered by
    *select* in growing runs."""
    run = FIRST_RUN
    while start < stop:
        keys = order[start:min(stop, start + run)]
        start += len(keys)
        run *= 2
        by_pool = {id(index.pool(key[1])): key for key in keys}
        for pool in select([index.pool(i) for _, i in keys]):
            yield pool, by_pool[id(pool)]


def _lowest(index, order, select):
    """The raw weight of the last passing pool (the walk from the bottom), or None."""
    run, stop = FIRST_RUN, len(order)
    while stop > 0:
        keys = order[max(0, stop - run):stop]
        stop -= len(keys)
        run *= 2
        passed = select([index.pool(i) for _, i in keys])
        if passed:
            return -next(key for key in keys if index.pool(key[1]) is passed[-1])[0]
    return None


def ranked(index: PoolIndex, *, thin: bool, multiplier: float, select):
    """The passing pools as WeighedPools best first (what weigh() would give), lazily; None
    when no pool passes (the caller's full scan then says which filter refused them all).

    *select(pools)* is the filter chain over a list of pools, keeping their order.
    """
    order = index.order(thin)
    minval = _lowest(index, order, select)
    if minval is None:
        return None
    first = next(_passing(index, order, 0, len(order), select))
    return LazyRanking(_ranking(index, order, select, multiplier,
                                maxval=-first[1][0], minval=minval))


def _ranking(index, order, select, multiplier, *, maxval, minval):
    """WeighedPools in weigh()'s order: by total weight, then by place in the view."""
    minval, maxval = float(minval), float(maxval)
    span = maxval - minval

    def total(weight):
        # NOTE(exact): weighers/base.py normalize()'s arithmetic, so totals are identical.
        return multiplier * 0.0 if minval == maxval else multiplier * ((weight - minval) / span)

    start, n = 0, len(order)
    while start < n:
        # A run of one raw weight is already in view order; the next weights whose totals
        # round to the same value join it, and then the group is sorted by place in the view.
        weight = -order[start][0]
        group_total = total(weight)
        stop = bisect.bisect_right(order, (order[start][0], math.inf))
        end = stop
        while end < n and total(-order[end][0]) == group_total:
            end = bisect.bisect_right(order, (order[end][0], math.inf))
        found = _passing(index, order, start, end, select)
        if end != stop:
            found = sorted(found, key=lambda item: item[1][1])
        for pool, _key in found:
            yield weigh_base.WeighedPool(pool, group_total)
        start = end


class LazyRanking(collections.abc.Sequence):
    """WeighedPools best first, computed as they are read (a placement reads one or two)."""

    def __init__(self, candidates):
        self._candidates = candidates
        self._read = []

    def _upto(self, count):
        if count > len(self._read):
            self._read.extend(itertools.islice(self._candidates, count - len(self._read)))

    def __iter__(self):
        for i in itertools.count():
            self._upto(i + 1)
            if i >= len(self._read):
                return
            yield self._read[i]

    def __len__(self):
        self._read.extend(self._candidates)
        return len(self._read)

    def __getitem__(self, index):
        if isinstance(index, slice) or index < 0:
            return list(self)[index]
        self._upto(index + 1)
        return self._read[index]

    def __eq__(self, other):
        if not isinstance(other, collections.abc.Sequence):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = None
