"""Client side of the volume RPC API, used by the API and scheduler processes.

Addressing is Cinder's: a backend is reached on `cinder-volume.<host@backend>`, a clustered
backend on `cinder-volume.<cluster@backend>` (any member takes it), and every backend through
fanout on `cinder-volume`.

Sent to the resource's cluster when its `cluster_name` is set, to its host otherwise (the
methods Cinder sends to `service_topic_queue`): create_volume, delete_volume, extend_volume,
do_cleanup, create_snapshot, delete_snapshot, revert_to_snapshot, create_group, update_group,
delete_group, attachment_update, attachment_delete, initialize_connection,
terminate_connection, attach_volume, detach_volume, remove_export, freeze_host, thaw_host,
failover_host, and for backups get_backup_device, remove_backup_device,
initialize_connection_snapshot, terminate_connection_snapshot, remove_export_snapshot, retype,
migrate_volume, migrate_volume_completion, manage_existing, manage_existing_snapshot,
get_manageable_volumes, get_manageable_snapshots. To the backend named by the caller (host or
cluster, as given): get_capabilities; to one service's own host: set_log_levels,
get_log_levels.
Fanout to every volume service: publish_service_capabilities.
"""

from cinderlike import rpc

RPC_API_VERSION = '1.11'


class VolumeAPI:
    """Casts and calls to volume services.

    API version history:

        1.0 - publish_service_capabilities (fanout)
        1.1 - delete_volume
        1.2 - create_volume (request_spec, and the filter_properties the scheduler received
              with `retry` when rescheduling is allowed: a receiver reads only `retry`),
              extend_volume
        1.3 - get_capabilities (call)
        1.4 - do_cleanup (cleanup request as a dict: service_ids, resource_type,
              resource_id, until)
        1.5 - create_snapshot, delete_snapshot, revert_to_snapshot (ids; delete_volume's
              cascade deletes the volume's `deleting` snapshots first)
        1.6 - attachment_update, attachment_delete, initialize_connection,
              terminate_connection, attach_volume, detach_volume (calls: the API answers
              with what they return or raise), remove_export (cast)
        1.7 - get_backup_device, remove_backup_device (calls: the device a backup host
              reads, a temporary snapshot of an in-use volume, and its removal),
              initialize_connection_snapshot, terminate_connection_snapshot (calls),
              remove_export_snapshot (cast)
        1.8 - freeze_host, thaw_host (calls), failover_host (cast), set_log_levels
              (cast), get_log_levels (call)
        1.9 - retype, migrate_volume (casts to the source's backend),
              migrate_volume_completion (call: Nova's swap-volume callback; the id kept)
        1.10 - manage_existing, manage_existing_snapshot (casts from the scheduler),
               get_manageable_volumes, get_manageable_snapshots (calls), delete_volume's
               and delete_snapshot's unmanage_only (os-unmanage)
        1.11 - create_group, delete_group (group ids; delete_group deletes the group's
               `deleting` member volumes first), update_group (volume ids to add/remove),
               create_group_snapshot, delete_group_snapshot (group snapshot ids),
               create_group_from_src (the members' rows name their sources)
    """

    RPC_API_VERSION = RPC_API_VERSION

    def __init__(self, conf, *, retry=None):
        self.client = rpc.get_client(conf, topic=rpc.VOLUME_TOPIC, version=RPC_API_VERSION,
                                     retry=retry)

    def _get_cctxt(self, host=None, *, cluster_name=None, fanout=False, version='1.0'):
        """Prepared client for one backend: its cluster's queue when it has one, else its own.

        *host* and *cluster_name* are `host@backend[#pool]` and `cluster@backend[#pool]`.
        """
        if fanout:
            return self.client.prepare(fanout=True, version=version)
        destination = cluster_name or host
        return self.client.prepare(topic=rpc.volume_topic(destination),
                                   server=rpc.server_of(destination), version=version)

    def publish_service_capabilities(self, ctxt):
        """Every volume service reports its capabilities to the schedulers now."""
        self._get_cctxt(fanout=True).cast(ctxt, 'publish_service_capabilities')

    def delete_volume(self, ctxt, *, volume_id, host, cluster_name=None, cascade=False,
                      unmanage_only=False):
        """Delete a volume already `deleting` from its backend (or any member of its
        cluster); with *unmanage_only* forget an `unmanaging` one, its data kept."""
        if unmanage_only:
            self._get_cctxt(host, cluster_name=cluster_name, version='1.10').cast(
                ctxt, 'delete_volume', volume_id=volume_id, unmanage_only=True)
            return
        self._get_cctxt(host, cluster_name=cluster_name, version='1.1').cast(
            ctxt, 'delete_volume', volume_id=volume_id, cascade=cascade)

    def create_volume(self, ctxt, *, volume_id, host, request_spec, filter_properties,
                      cluster_name=None, allow_reschedule=True):
        """Create a volume the scheduler placed on *host* (`host@backend#pool`)."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.2').cast(
            ctxt, 'create_volume', volume_id=volume_id, request_spec=request_spec,
            filter_properties=filter_properties, allow_reschedule=allow_reschedule)

    def extend_volume(self, ctxt, *, volume_id, host, new_size, reservations,
                      cluster_name=None):
        """Grow a volume already `extending` to *new_size*; *reservations* are its quota."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.2').cast(
            ctxt, 'extend_volume', volume_id=volume_id, new_size=new_size,
            reservations=reservations)

    def retype(self, ctxt, *, volume_id, host, new_type_id, reservations, cluster_name=None):
        """Change a `retyping` volume's type on its own backend."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.9').cast(
            ctxt, 'retype', volume_id=volume_id, new_type_id=new_type_id,
            reservations=reservations)

    def migrate_volume(self, ctxt, *, volume_id, host, target_id, force_host_copy,
                       new_type_id, reservations, cluster_name=None):
        """Move a `starting` volume's data to the destination row *target_id*."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.9').cast(
            ctxt, 'migrate_volume', volume_id=volume_id, target_id=target_id,
            force_host_copy=force_host_copy, new_type_id=new_type_id,
            reservations=reservations)

    def migrate_volume_completion(self, ctxt, *, volume_id, host, target_id, error,
                                  cluster_name=None) -> str:
        """Finish (or, with *error*, undo) a migration Nova swapped; the id kept."""
        return self._get_cctxt(host, cluster_name=cluster_name, version='1.9').call(
            ctxt, 'migrate_volume_completion', volume_id=volume_id, target_id=target_id,
            error=error)

    def get_capabilities(self, ctxt, *, host, discover=False):
        """The backend's capabilities and the properties extra specs may set (a call).

        *host* is `host@backend` or `cluster@backend`; *discover* asks the driver for fresh
        stats first.
        """
        return self._get_cctxt(host, version='1.3').call(ctxt, 'get_capabilities',
                                                          discover=discover)

    def do_cleanup(self, ctxt, *, cleanup_request: dict, host, cluster_name=None):
        """Settle workers rows (POST /workers/cleanup): on the cluster's queue when the
        scheduler found the cluster up (any live member takes it), else on *host*'s."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.4').cast(
            ctxt, 'do_cleanup', cleanup_request=cleanup_request)

    def create_snapshot(self, ctxt, *, snapshot_id, host, cluster_name=None):
        """Create a `creating` snapshot on the backend of its volume (*host*)."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.5').cast(
            ctxt, 'create_snapshot', snapshot_id=snapshot_id)

    def delete_snapshot(self, ctxt, *, snapshot_id, host, cluster_name=None,
                        unmanage_only=False):
        """Delete a `deleting` snapshot from the backend of its volume (*host*); with
        *unmanage_only* forget an `unmanaging` one, its data kept."""
        if unmanage_only:
            self._get_cctxt(host, cluster_name=cluster_name, version='1.10').cast(
                ctxt, 'delete_snapshot', snapshot_id=snapshot_id, unmanage_only=True)
            return
        self._get_cctxt(host, cluster_name=cluster_name, version='1.5').cast(
            ctxt, 'delete_snapshot', snapshot_id=snapshot_id)

    def create_group(self, ctxt, *, group_id, host, cluster_name=None):
        """Create a `creating` group the scheduler placed on *host* (`host@backend`)."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.11').cast(
            ctxt, 'create_group', group_id=group_id)

    def create_group_from_src(self, ctxt, *, group_id, host, cluster_name=None):
        """Make the members of a `creating` group from their sources on *host*."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.11').cast(
            ctxt, 'create_group_from_src', group_id=group_id)

    def update_group(self, ctxt, *, group_id, host, add_volumes, remove_volumes,
                     cluster_name=None):
        """Add and remove members of an `updating` group on its backend."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.11').cast(
            ctxt, 'update_group', group_id=group_id, add_volumes=add_volumes,
            remove_volumes=remove_volumes)

    def create_group_snapshot(self, ctxt, *, group_snapshot_id, host, cluster_name=None):
        """Snapshot every member of a group (*host*: the group's backend)."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.11').cast(
            ctxt, 'create_group_snapshot', group_snapshot_id=group_snapshot_id)

    def delete_group_snapshot(self, ctxt, *, group_snapshot_id, host, cluster_name=None):
        """Delete a `deleting` group snapshot and its member snapshots."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.11').cast(
            ctxt, 'delete_group_snapshot', group_snapshot_id=group_snapshot_id)

    def delete_group(self, ctxt, *, group_id, host, cluster_name=None):
        """Delete a `deleting` group (and its `deleting` members) from its backend."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.11').cast(
            ctxt, 'delete_group', group_id=group_id)

    def revert_to_snapshot(self, ctxt, *, volume_id, snapshot_id, host, cluster_name=None):
        """Revert a `reverting` volume to its `restoring` (latest) snapshot."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.5').cast(
            ctxt, 'revert_to_snapshot', volume_id=volume_id, snapshot_id=snapshot_id)

    def _call(self, ctxt, method, *, host, cluster_name, **kwargs):
        return self._get_cctxt(host, cluster_name=cluster_name, version='1.6').call(
            ctxt, method, **kwargs)

    def attachment_update(self, ctxt, *, volume_id, attachment_id, connector, host,
                          cluster_name=None) -> dict:
        """Connect *connector*'s host to the volume for a reserved attachment; the
        connection info (a call, as Cinder)."""
        return self._call(ctxt, 'attachment_update', host=host, cluster_name=cluster_name,
                          volume_id=volume_id, attachment_id=attachment_id,
                          connector=connector)

    def attachment_delete(self, ctxt, *, volume_id, attachment_id, host, cluster_name=None):
        """Terminate the attachment's connection (and the export when it was the last)."""
        return self._call(ctxt, 'attachment_delete', host=host, cluster_name=cluster_name,
                          volume_id=volume_id, attachment_id=attachment_id)

    def initialize_connection(self, ctxt, *, volume_id, connector, host,
                              cluster_name=None) -> dict:
        """Legacy os-initialize_connection: export the volume to *connector*; its info."""
        return self._call(ctxt, 'initialize_connection', host=host, cluster_name=cluster_name,
                          volume_id=volume_id, connector=connector)

    def terminate_connection(self, ctxt, *, volume_id, connector, host, cluster_name=None,
                             force=False):
        """Legacy os-terminate_connection (and os-force_detach with *force*)."""
        return self._call(ctxt, 'terminate_connection', host=host, cluster_name=cluster_name,
                          volume_id=volume_id, connector=connector, force=force)

    def attach_volume(self, ctxt, *, volume_id, instance_uuid, host_name, mountpoint, mode,
                      host, cluster_name=None) -> str:
        """Legacy os-attach: record an attachment to an instance or a host; its id."""
        return self._call(ctxt, 'attach_volume', host=host, cluster_name=cluster_name,
                          volume_id=volume_id, instance_uuid=instance_uuid,
                          host_name=host_name, mountpoint=mountpoint, mode=mode)

    def detach_volume(self, ctxt, *, volume_id, attachment_id, host, cluster_name=None):
        """Legacy os-detach: remove the export and the attachment."""
        return self._call(ctxt, 'detach_volume', host=host, cluster_name=cluster_name,
                          volume_id=volume_id, attachment_id=attachment_id)

    def remove_export(self, ctxt, *, volume_id, host, cluster_name=None):
        """Remove the volume's export (a cast)."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.6').cast(
            ctxt, 'remove_export', volume_id=volume_id)

    # --- backups (1.7): calls from a backup host, to the volume's backend --------------

    def _backup_call(self, ctxt, method, *, host, cluster_name, **kwargs):
        return self._get_cctxt(host, cluster_name=cluster_name, version='1.7').call(
            ctxt, method, **kwargs)

    def get_backup_device(self, ctxt, *, backup_id, host, cluster_name=None) -> dict:
        """{'is_snapshot', 'id'}: what the backup host reads for a `creating` backup (a
        temporary clone or snapshot is made for an in-use volume)."""
        return self._backup_call(ctxt, 'get_backup_device', host=host,
                                 cluster_name=cluster_name, backup_id=backup_id)

    def remove_backup_device(self, ctxt, *, backup_id, host, cluster_name=None):
        """Remove the backup's temporary volume or snapshot, if any."""
        return self._backup_call(ctxt, 'remove_backup_device', host=host,
                                 cluster_name=cluster_name, backup_id=backup_id)

    def initialize_connection_snapshot(self, ctxt, *, snapshot_id, connector, host,
                                       cluster_name=None) -> dict:
        """The snapshot's connection info for *connector*'s host."""
        return self._backup_call(ctxt, 'initialize_connection_snapshot', host=host,
                                 cluster_name=cluster_name, snapshot_id=snapshot_id,
                                 connector=connector)

    def terminate_connection_snapshot(self, ctxt, *, snapshot_id, connector, host,
                                      cluster_name=None):
        """Stop serving the snapshot to *connector*'s host."""
        return self._backup_call(ctxt, 'terminate_connection_snapshot', host=host,
                                 cluster_name=cluster_name, snapshot_id=snapshot_id,
                                 connector=connector)

    def remove_export_snapshot(self, ctxt, *, snapshot_id, host, cluster_name=None):
        """Remove the snapshot's export (a cast)."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.7').cast(
            ctxt, 'remove_export_snapshot', snapshot_id=snapshot_id)

    def freeze_host(self, ctxt, *, host, cluster_name=None) -> bool:
        """The backend disables itself for scheduling and tells its driver (a call)."""
        return self._get_cctxt(host, cluster_name=cluster_name, version='1.8').call(
            ctxt, 'freeze_host')

    def thaw_host(self, ctxt, *, host, cluster_name=None) -> bool:
        """The backend's driver thaws it and it enables itself again; False when the
        driver refused (a call)."""
        return self._get_cctxt(host, cluster_name=cluster_name, version='1.8').call(
            ctxt, 'thaw_host')

    def failover_host(self, ctxt, *, host, cluster_name=None, secondary_backend_id=None):
        """Fail the `failing-over` backend over to *secondary_backend_id* (a cast)."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.8').cast(
            ctxt, 'failover_host', secondary_backend_id=secondary_backend_id)

    def set_log_levels(self, ctxt, *, host, prefix, level):
        """Set *level* on the loggers under *prefix* of the service of *host* (a cast)."""
        self._get_cctxt(host, version='1.8').cast(ctxt, 'set_log_levels', prefix=prefix,
                                                  level=level)

    def get_log_levels(self, ctxt, *, host, prefix) -> dict:
        """{logger: level} under *prefix* in the service of *host* (a call)."""
        return self._get_cctxt(host, version='1.8').call(ctxt, 'get_log_levels', prefix=prefix)

    # --- manage existing (1.10) --------------------------------------------------------

    def manage_existing(self, ctxt, *, volume_id, ref, host, cluster_name=None):
        """Adopt the backend object *ref* as the `managing` volume (a cast)."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.10').cast(
            ctxt, 'manage_existing', volume_id=volume_id, ref=ref)

    def manage_existing_snapshot(self, ctxt, *, snapshot_id, ref, host, cluster_name=None):
        """Adopt the backend object *ref* as the `creating` snapshot (a cast)."""
        self._get_cctxt(host, cluster_name=cluster_name, version='1.10').cast(
            ctxt, 'manage_existing_snapshot', snapshot_id=snapshot_id, ref=ref)

    def get_manageable_volumes(self, ctxt, *, host, cluster_name=None, marker=None,
                               limit=None, offset=None, sort_keys=(), sort_dirs=()) -> list:
        """The backend's volumes as manageable entries, sorted and paged (a call)."""
        return self._get_cctxt(host, cluster_name=cluster_name, version='1.10').call(
            ctxt, 'get_manageable_volumes', marker=marker, limit=limit, offset=offset,
            sort_keys=list(sort_keys), sort_dirs=list(sort_dirs))

    def get_manageable_snapshots(self, ctxt, *, host, cluster_name=None, marker=None,
                                 limit=None, offset=None, sort_keys=(), sort_dirs=()) -> list:
        """The backend's snapshots as manageable entries, sorted and paged (a call)."""
        return self._get_cctxt(host, cluster_name=cluster_name, version='1.10').call(
            ctxt, 'get_manageable_snapshots', marker=marker, limit=limit, offset=offset,
            sort_keys=list(sort_keys), sort_dirs=list(sort_dirs))
