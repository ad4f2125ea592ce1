"""In-memory driver for cinderlike-all and scale tests: capacity and thin/thick from options."""

from oslo_config import cfg

from cinderlike.drivers.volume import base

DRIVER_OPTS = [
    cfg.IntOpt('fake_total_capacity_gb', default=1000, min=1,
               help='Capacity the fake driver reports, in GiB.'),
    cfg.BoolOpt('fake_thin_provisioning', default=True,
                help='Whether the fake driver reports thin (True) or thick (False) '
                     'provisioning.'),
]


class FakeDriver(base.VolumeDriver):
    """Keeps volumes as sizes in a dict; nothing leaves the process."""

    DRIVER_OPTS = DRIVER_OPTS

    def __init__(self, configuration, *, host):
        super().__init__(configuration, host=host)
        self._volumes: dict[str, int] = {}

    def do_setup(self, context):
        """Nothing to connect to: the store is this process's memory."""

    def check_for_setup_error(self):
        """The in-memory store is always usable."""

    def get_volume_stats(self, refresh=False) -> dict:
        conf = self.configuration
        total = conf.fake_total_capacity_gb
        allocated = sum(self._volumes.values())
        thin = conf.fake_thin_provisioning
        return {
            'volume_backend_name': self.backend_name,
            'vendor_name': 'cinderlike',
            'driver_version': self.VERSION,
            'storage_protocol': 'fake',
            'pools': [{
                'pool_name': self.backend_name,
                'total_capacity_gb': total,
                'free_capacity_gb': total - allocated,
                'allocated_capacity_gb': allocated,
                'provisioned_capacity_gb': allocated,
                'reserved_percentage': conf.reserved_percentage,
                'max_over_subscription_ratio': conf.max_over_subscription_ratio,
                'thin_provisioning_support': thin,
                'thick_provisioning_support': not thin,
                'multiattach': True,
                'QoS_support': False,
            }],
        }
