"""ChanceWeigher: a random weight per pool."""

import random

from cinderlike.scheduler.weighers import base


class ChanceWeigher(base.BaseWeigher):
    name = 'ChanceWeigher'

    def __init__(self, multiplier=1.0, rng=random.random):
        super().__init__(multiplier)
        self._rng = rng

    def weigh_one(self, pool, request):
        return self._rng()
