"""cinderlike-backup: reach a volume's data as a file, through the volume service.

The volume service names the device (get_backup_device) and exports it to this host's
connector (initialize_connection, or the snapshot variant); the connector opens it. The
connection is terminated and the export removed in every outcome, as Cinder's backup manager
does with os-brick.
"""

import contextlib

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


@contextlib.contextmanager
def opened(manager, ctx, *, volume, device: dict, writable: bool):
    """The device ({'is_snapshot', 'id'}) of *volume* as a file-like (read, write, seek,
    tell, size), while the block runs.

    :raises: whatever the volume service or the connector raised; the connection made so
        far is undone first.
    """
    api = manager.volume_api
    route = {'host': volume.host, 'cluster_name': volume.cluster_name}
    connector = manager.connector.properties(manager.conf, manager.host)
    if device['is_snapshot']:
        info = api.initialize_connection_snapshot(ctx, snapshot_id=device['id'],
                                                  connector=connector, **route)
    else:
        info = api.initialize_connection(ctx, volume_id=device['id'], connector=connector,
                                         **route)
    try:
        with manager.connector.open_volume(info, writable=writable) as volume_file:
            yield volume_file
    finally:
        _disconnect(manager, ctx, device, connector, route)


def _disconnect(manager, ctx, device: dict, connector: dict, route: dict) -> None:
    """Terminate the connection and remove the export; failures are logged, not raised,
    so they never hide the operation's own outcome."""
    api = manager.volume_api
    try:
        if device['is_snapshot']:
            api.terminate_connection_snapshot(ctx, snapshot_id=device['id'],
                                              connector=connector, **route)
            api.remove_export_snapshot(ctx, snapshot_id=device['id'], **route)
        else:
            api.terminate_connection(ctx, volume_id=device['id'], connector=connector,
                                     **route)
            api.remove_export(ctx, volume_id=device['id'], **route)
    except Exception:
        LOG.exception('%s %s: could not disconnect it from backup host %s',
                      'Snapshot' if device['is_snapshot'] else 'Volume', device['id'],
                      manager.host)
