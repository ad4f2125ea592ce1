"""cinderlike-api: a backend's capabilities → the GET /capabilities/{host} document."""

_SHOWN = ('vendor_name', 'volume_backend_name', 'pool_name', 'driver_version',
          'storage_protocol', 'display_name', 'description', 'visibility',
          'replication_targets', 'properties')


def show(capabilities: dict, *, backend: str) -> dict:
    """Cinder's summary: fixed keys (None, or [] for targets, when the driver did not
    report them), namespaced by the backend's queue name, storage_protocol as its first
    (preferred) variant."""
    shown = {'namespace': f'OS::Storage::Capabilities::{backend}'}
    shown.update((key, capabilities.get(key)) for key in _SHOWN)
    shown['replication_targets'] = capabilities.get('replication_targets', [])
    protocol = shown['storage_protocol']
    if isinstance(protocol, list):
        shown['storage_protocol'] = protocol[0] if protocol else None
    return shown
