"""[DEFAULT] options of cinderlike-scheduler's placement: filters, weighers, retries.

Names and defaults are Cinder's (host_manager.py, filter_scheduler.py, weights/*.py).
"""

from oslo_config import cfg

OPTS = [
    cfg.ListOpt('scheduler_default_filters',
                default=['AvailabilityZoneFilter', 'CapacityFilter', 'CapabilitiesFilter'],
                help='Filter class names applied, in order, when the request names none. '
                     'Available: AvailabilityZoneFilter, CapacityFilter, CapabilitiesFilter, '
                     'DriverFilter, JsonFilter, RetryFilter, SameBackendFilter, '
                     'DifferentBackendFilter.'),
    cfg.ListOpt('scheduler_default_weighers', default=['CapacityWeigher'],
                help='Weigher class names used to order the pools that pass the filters. '
                     'Available: CapacityWeigher, AllocatedCapacityWeigher, '
                     'VolumeNumberWeigher, GoodnessWeigher, ChanceWeigher.'),
    cfg.IntOpt('scheduler_max_attempts', default=3, min=1,
               help='Maximum number of attempts to schedule a volume; 1 disables '
                    'rescheduling.'),
    cfg.FloatOpt('capacity_weight_multiplier', default=1.0,
                 help='Multiplier used for weighing free capacity. Negative numbers mean to '
                      'stack vs spread.'),
    cfg.FloatOpt('allocated_capacity_weight_multiplier', default=-1.0,
                 help='Multiplier used for weighing allocated capacity. Positive numbers '
                      'mean to stack vs spread.'),
    cfg.FloatOpt('volume_number_multiplier', default=-1.0,
                 help='Multiplier used for weighing volume number. Negative numbers mean to '
                      'spread vs stack.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
