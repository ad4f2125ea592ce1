"""The interface the volume manager drives on each backend (cinderlike-volume process).

Drivers get what they need from the manager and never touch database rows.
"""

import abc


class VolumeDriver(abc.ABC):
    """One backend's driver; `configuration` is the backend's BackendConfiguration."""

    VERSION = '1.0.0'
    # Options of this driver, registered into the backend's section by the manager.
    DRIVER_OPTS = []

    def __init__(self, configuration, *, host):
        self.configuration = configuration
        self.host = host

    @property
    def backend_name(self) -> str:
        """volume_backend_name, or the driver's class name as Cinder falls back to."""
        return self.configuration.volume_backend_name or type(self).__name__

    @abc.abstractmethod
    def do_setup(self, context):
        """Connect to the backend and prepare it; raise on failure (the manager retries)."""

    @abc.abstractmethod
    def check_for_setup_error(self):
        """Raise when the backend is not usable after do_setup."""

    @abc.abstractmethod
    def get_volume_stats(self, refresh=False) -> dict:
        """Backend capabilities and per-pool capacity, as Cinder drivers report them.

        Keys: volume_backend_name, vendor_name, driver_version, storage_protocol and `pools`,
        a list of dicts with pool_name, total_capacity_gb, free_capacity_gb,
        allocated_capacity_gb, provisioned_capacity_gb, reserved_percentage,
        max_over_subscription_ratio, thin_provisioning_support, thick_provisioning_support.
        """
