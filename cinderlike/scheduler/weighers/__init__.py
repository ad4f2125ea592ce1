"""Scheduler weighers by Cinder class name, as scheduler_default_weighers lists them."""

import random

from cinderlike import exception
from cinderlike.scheduler.weighers import capacity, chance, goodness, volume_number

# Weigher name -> the option holding its multiplier (None: fixed at 1.0, as in Cinder).
MULTIPLIER_OPTIONS = {
    'CapacityWeigher': 'capacity_weight_multiplier',
    'AllocatedCapacityWeigher': 'allocated_capacity_weight_multiplier',
    'VolumeNumberWeigher': 'volume_number_multiplier',
    'GoodnessWeigher': None,
    'ChanceWeigher': None,
}
DEFAULT_MULTIPLIERS = {
    'capacity_weight_multiplier': 1.0,
    'allocated_capacity_weight_multiplier': -1.0,
    'volume_number_multiplier': -1.0,
}


def load(names, *, multipliers=None, volume_counts=None, rng=random.random):
    """Instantiate the weighers named in *names*, each with its configured multiplier.

    :raises: SchedulerHostWeigherNotFound for names that are not weighers.
    """
    unknown = [name for name in names if name not in MULTIPLIER_OPTIONS]
    if unknown:
        raise exception.SchedulerHostWeigherNotFound(weigher_name=', '.join(unknown))
    values = dict(DEFAULT_MULTIPLIERS, **(multipliers or {}))
    loaded = []
    for name in names:
        option = MULTIPLIER_OPTIONS[name]
        multiplier = values[option] if option else 1.0
        if name == 'CapacityWeigher':
            loaded.append(capacity.CapacityWeigher(multiplier))
        elif name == 'AllocatedCapacityWeigher':
            loaded.append(capacity.AllocatedCapacityWeigher(multiplier))
        elif name == 'VolumeNumberWeigher':
            if volume_counts is None:
                raise ValueError('VolumeNumberWeigher needs a volume_counts callable')
            loaded.append(volume_number.VolumeNumberWeigher(multiplier, volume_counts))
        elif name == 'GoodnessWeigher':
            loaded.append(goodness.GoodnessWeigher(multiplier))
        else:
            loaded.append(chance.ChanceWeigher(multiplier, rng))
    return loaded
