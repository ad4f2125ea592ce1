"""cinderlike-volume: connect and disconnect hosts (Cinder's attachment_update,
attachment_delete, initialize_connection, terminate_connection, attach_volume, detach_volume,
remove_export) and re-export attached volumes at start-up.

The driver exports the volume and answers with connection info; the attachment row keeps
the connector and that info. Exports are made and removed under the volume's connection
lock, so "the last connection removes the export" is decided by one service at a time.
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils

from cinderlike import exception, locks, messages
from cinderlike.db import attachments as db_attachments
from cinderlike.db import qos_specs as db_qos_specs
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base
from cinderlike.states import attachments as states

LOG = logging.getLogger(__name__)


def _admin_metadata(manager, volume_id: str) -> dict:
    return db_volumes.get_metadata(manager.db, volume_ids=[volume_id], admin=True)[volume_id]


def _access_mode(manager, volume_id: str, mode: str | None) -> str:
    """'ro' for a read-only volume or a read-only attachment, else 'rw' (Cinder's rule)."""
    admin = _admin_metadata(manager, volume_id)
    if admin.get('attached_mode'):
        return admin['attached_mode']
    if mode == states.READ_ONLY or db_volumes.is_readonly(admin):
        return states.READ_ONLY
    return states.READ_WRITE


def _terminate(manager, ref: base.VolumeRef, connector: dict | None) -> None:
    """:raises VolumeBackendAPIException: the driver could not stop serving *connector*."""
    try:
        manager.driver.terminate_connection(ref, connector)
    except Exception as error:
        raise exception.VolumeBackendAPIException(
            data=f'Terminate volume connection failed: {error}') from error


def _export(manager, volume, connector: dict, *, mode: str | None) -> dict:
    """Export *volume* to *connector*'s host; the driver's connection info with Cinder's
    `access_mode`, `encrypted` and `enforce_multipath`.

    :raises VolumeBackendAPIException: the export or the connection failed (the export is
        removed again).
    """
    manager.require_driver()
    # NOTE(qos): the type's QoS specs go to the driver, which passes the front-end ones to
    # the host; they and the access mode are read once, the ref is rebuilt after the export.
    qos = db_qos_specs.get_for_type(manager.db, type_id=volume.volume_type_id)['qos_specs']
    readonly = _access_mode(manager, volume.id, mode) == states.READ_ONLY
    ref = base.VolumeRef.of(volume, qos_specs=qos, readonly=readonly)
    try:
        update = manager.driver.create_export(ref, connector)
    except exception.CinderlikeException as error:
        raise exception.VolumeBackendAPIException(
            data=f'Create export for volume failed ({error.msg}).') from error
    if update:
        db_volumes.update(manager.db, volume_id=volume.id, values=update)
        ref = base.VolumeRef.of(db_volumes.get(manager.db, volume_id=volume.id),
                                qos_specs=qos, readonly=readonly)
    try:
        info = manager.driver.initialize_connection(ref, connector)
    except Exception as error:
        LOG.exception('Volume %s: driver failed to initialize the connection', volume.id)
        manager.driver.remove_export(ref)
        raise exception.VolumeBackendAPIException(
            data=f'Driver initialize connection failed (error: {error}).') from error
    data = info.setdefault('data', {})
    data['access_mode'] = states.READ_ONLY if ref.readonly else states.READ_WRITE
    data['encrypted'] = volume.encryption_key_id is not None
    data['enforce_multipath'] = connector.get('enforce_multipath', False)
    return info


def _message(manager, ctx, volume_id: str, action, detail, error,
             project_id: str | None = None) -> None:
    messages.create(manager.db, ctx, conf=manager.conf, action=action,
                    resource_uuid=volume_id, detail=detail, exception=error,
                    project_id=project_id)


def attachment_update(manager, ctx, *, volume_id: str, attachment_id: str,
                      connector: dict) -> dict:
    """Connect a reserved attachment: `attaching`, with the connector and the connection
    info stored on it; that info, flattened as Cinder returns it.

    :raises VolumeAttachmentNotFound, InvalidVolume, VolumeBackendAPIException,
        DriverNotInitialized: (the attachment is then `error_attaching`)
    """
    attachment, hold = db_attachments.begin_connect(manager.db, attachment_id=attachment_id,
                                                    service_id=manager.service_id)
    volume = db_volumes.get(manager.db, volume_id=volume_id)
    mode = connector.get('mode', states.READ_WRITE)
    if attachment.attach_mode not in (None, states.MODE_UNSET):
        mode = connector['mode'] = attachment.attach_mode
    manager.notifier.info(ctx, volume, 'attach.start')
    try:
        with manager.coordinator.get_lock(locks.volume_connections(volume_id)):
            info = _export(manager, volume, connector, mode=mode)
    except Exception as error:
        LOG.exception('Volume %s: attachment %s could not be connected', volume_id,
                      attachment_id)
        db_attachments.connect_failed(manager.db, attachment_id=attachment_id, hold=hold)
        _message(manager, ctx, volume_id, messages.Action.UPDATE_ATTACHMENT,
                 messages.Detail.ATTACH_ERROR, error)
        raise
    # NOTE(cinder): the attachment's connection info is the driver's `data` with the
    # driver_volume_type beside it, plus the attachment id.
    flat = dict(info['data'], **{k: v for k, v in info.items() if k != 'data'},
                attachment_id=attachment_id)
    if not db_attachments.connected(manager.db, attachment_id=attachment_id, hold=hold,
                                    values={
            'connector': jsonutils.dumps(connector), 'connection_info': jsonutils.dumps(flat),
            'attached_host': connector.get('host'),
            'mountpoint': connector.get('mountpoint', 'na'), 'attach_mode': mode}):
        # NOTE(fencing): a detach or a cleanup took the attachment meanwhile; its outcome
        # stands, the host must not use this connection, and this connect removes it.
        _undo_connection(manager, volume, connector, attachment_id=attachment_id)
        raise exception.InvalidVolume(
            reason=f'Attachment {attachment_id} was detached or cleaned up while it was '
                   f'being connected.')
    LOG.info('Volume %s: attachment %s connected to %s', volume_id, attachment_id,
             connector.get('host'))
    return flat


def _others_connected(manager, volume_id: str, attachment_id: str | None) -> bool:
    return any(a.id != attachment_id and a.connection_info
               for a in db_attachments.of_volume(manager.db, volume_id=volume_id))


def _disconnect(manager, volume, connector: dict | None, *, attachment_id: str | None,
                force: bool = False) -> None:
    """Terminate *connector*'s connection, and remove the export when no other attachment
    of the volume is connected. :raises VolumeBackendAPIException:"""
    manager.require_driver()
    ref = base.VolumeRef.of(volume)
    with manager.coordinator.get_lock(locks.volume_connections(volume.id)):
        if connector or force:
            _terminate(manager, ref, connector)
        if _others_connected(manager, volume.id, attachment_id):
            return
        try:
            manager.driver.remove_export(ref)
        except Exception:
            # NOTE(cinder): a failed remove_export does not fail the detach.
            LOG.warning('Volume %s: failed to remove the export, ignored', volume.id,
                        exc_info=True)


def _undo_connection(manager, volume, connector: dict | None, *, attachment_id: str) -> None:
    """Remove a connection no attachment keeps (*connector*'s, when known) and the export
    unless another attachment is connected; a failure is logged, the caller's outcome stands."""
    try:
        _disconnect(manager, volume, connector, attachment_id=attachment_id)
    except Exception:
        LOG.warning('Volume %s: the connection of attachment %s could not be removed',
                    volume.id, attachment_id, exc_info=True)


def attachment_delete(manager, ctx, *, volume_id: str, attachment_id: str) -> None:
    """Disconnect a `detaching` attachment (the API deletes the row afterwards).

    :raises VolumeBackendAPIException, DriverNotInitialized: (it is then `error_detaching`)
    """
    attachment = db_attachments.get(manager.db, attachment_id=attachment_id)
    volume = db_volumes.get(manager.db, volume_id=volume_id)
    manager.notifier.info(ctx, volume, 'detach.start')
    connector = jsonutils.loads(attachment.connector) if attachment.connector else None
    try:
        _disconnect(manager, volume, connector, attachment_id=attachment_id)
    except Exception as error:
        LOG.exception('Volume %s: attachment %s could not be disconnected', volume_id,
                      attachment_id)
        db_attachments.detach_failed(manager.db, attachment_id=attachment_id)
        # NOTE(cinder): Cinder has no detach action; a detach is an attachment update.
        # The volume's project reads it, also when a cleanup's admin context resumed it.
        _message(manager, ctx, volume_id, messages.Action.UPDATE_ATTACHMENT,
                 messages.Detail.DETACH_ERROR, error, project_id=volume.project_id)
        raise


def settle_interrupted_connect(manager, ctx, machine, resource, row, hold) -> None:
    """Cleanup of a connect its service died in, or of an attachment create's finished
    connect whose API died before answering (sweep_lost: nobody learned its id): the stored
    connector's connection is terminated (when the connect recorded one), the export removed
    when no other attachment of the volume is connected, the attachment ends
    `error_attaching` without connection info (the volume's status recomputed) and its
    project gets Cinder's attach error message."""
    volume = db_volumes.get(manager.db, volume_id=resource.volume_id)
    connector = jsonutils.loads(resource.connector) if resource.connector else None
    _undo_connection(manager, volume, connector, attachment_id=resource.id)
    if not db_attachments.connect_failed(manager.db, attachment_id=resource.id, hold=hold,
                                         disconnected=True):
        return
    LOG.warning('Volume %s: attachment %s connect interrupted (service %s); settled as '
                'error_attaching', volume.id, resource.id,
                row.service_id or '(none: its API died before answering)')
    _message(manager, ctx, volume.id, messages.Action.UPDATE_ATTACHMENT,
             messages.Detail.ATTACH_ERROR, None, project_id=volume.project_id)


# NOTE(backend): it drives the driver, so only a service of the volume's backend sweeps it.
settle_interrupted_connect.needs_backend = True


def settle_lost_reservation(manager, ctx, machine, resource, row, hold) -> None:
    """Sweep of an attachment create whose connect call was never made (its API process
    died after reserving): the reservation is undone, as the API's own undo would, and the
    volume's project told the attach failed."""
    if not db_attachments.undo_reserve(manager.db, attachment_id=resource.id):
        return
    volume = db_volumes.get(manager.db, volume_id=resource.volume_id)
    LOG.warning('Volume %s: attachment %s was reserved to connect and never connected; '
                'reservation undone', volume.id, resource.id)
    _message(manager, ctx, volume.id, messages.Action.UPDATE_ATTACHMENT,
             messages.Detail.ATTACH_ERROR, None, project_id=volume.project_id)


def settle_interrupted_detach(manager, ctx, machine, resource, row, hold) -> None:
    """Cleanup of a detach the API began and never finished (it died, or its answer was
    lost): the connection is terminated again and the attachment deleted, as the API's
    DELETE would have; a backend failure leaves it `error_detaching` with a message."""
    LOG.warning('Volume %s: attachment %s detach interrupted; resuming it',
                resource.volume_id, resource.id)
    attachment_delete(manager, ctx, volume_id=resource.volume_id, attachment_id=resource.id)
    db_attachments.finish_detach(manager.db, volume_id=resource.volume_id,
                                 attachment_id=resource.id)
    manager.notifier.info(ctx, db_volumes.get(manager.db, volume_id=resource.volume_id),
                          'detach.end')


settle_interrupted_detach.needs_backend = True


def initialize_connection(manager, ctx, *, volume_id: str, connector: dict) -> dict:
    """Legacy os-initialize_connection: the driver's connection info (nothing stored)."""
    volume = db_volumes.get(manager.db, volume_id=volume_id)
    with manager.coordinator.get_lock(locks.volume_connections(volume_id)):
        return _export(manager, volume, connector, mode=connector.get('mode'))


def terminate_connection(manager, ctx, *, volume_id: str, connector: dict | None,
                         force: bool = False) -> None:
    """Legacy os-terminate_connection: the driver stops serving *connector*'s host."""
    manager.require_driver()
    volume = db_volumes.get(manager.db, volume_id=volume_id)
    _terminate(manager, base.VolumeRef.of(volume), connector)


def attach_volume(manager, ctx, *, volume_id: str, instance_uuid: str | None,
                  host_name: str | None, mountpoint: str, mode: str) -> str:
    """Legacy os-attach: an `attached` attachment, the volume `in-use`; its id.

    :raises InvalidVolumeAttachMode, InvalidVolume, DriverNotInitialized:
    """
    volume = db_volumes.get(manager.db, volume_id=volume_id)
    admin = _admin_metadata(manager, volume_id)
    try:
        manager.require_driver()
        if db_volumes.is_readonly(admin) and mode != states.READ_ONLY:
            raise exception.InvalidVolumeAttachMode(mode=mode, volume_id=volume_id)
    except Exception as error:
        _message(manager, ctx, volume_id, messages.Action.ATTACH_VOLUME,
                 messages.Detail.ATTACH_ERROR, error)
        raise
    # NOTE(cinder): as Cinder, a refused attach (already attached) sends no attach.start;
    # here the refusal is the CAS of the write itself, so start follows it.
    row = db_attachments.attach(manager.db, volume_id=volume_id, values={
        'instance_uuid': instance_uuid, 'attached_host': host_name, 'mountpoint': mountpoint,
        'attach_mode': mode})
    manager.notifier.info(ctx, volume, 'attach.start')
    manager.notifier.info(ctx, volume, 'attach.end', reload=True)
    return row.id


def detach_volume(manager, ctx, *, volume_id: str, attachment_id: str | None) -> None:
    """Legacy os-detach: remove the export, delete the attachment, recompute the volume.

    :raises InvalidVolume: several attachments and no id; VolumeBackendAPIException:
    """
    volume = db_volumes.get(manager.db, volume_id=volume_id)
    attachments = db_attachments.of_volume(manager.db, volume_id=volume_id)
    if attachment_id is None:
        if len(attachments) > 1:
            raise exception.InvalidVolume(reason='Detach volume failed: More than one '
                                                 'attachment, but no attachment_id provided.')
        attachment_id = attachments[0].id if attachments else None
    manager.notifier.info(ctx, volume, 'detach.start')
    if attachment_id is not None and any(a.id == attachment_id for a in attachments):
        try:
            _disconnect(manager, volume, None, attachment_id=attachment_id)
        except Exception as error:
            _message(manager, ctx, volume_id, messages.Action.UPDATE_ATTACHMENT,
                     messages.Detail.DETACH_ERROR, error)
            raise
    # NOTE(cinder): an unknown attachment still settles the volume's status.
    db_attachments.finish_detach(manager.db, volume_id=volume_id, attachment_id=attachment_id)
    manager.notifier.info(ctx, volume, 'detach.end', reload=True)


def remove_export(manager, ctx, *, volume_id: str) -> None:
    """Cast: remove the volume's export."""
    manager.require_driver()
    volume = db_volumes.get(manager.db, volume_id=volume_id)
    with manager.coordinator.get_lock(locks.volume_connections(volume_id)):
        manager.driver.remove_export(base.VolumeRef.of(volume))


def reexport(manager, ctx, volumes) -> int:
    """init_host: the driver recreates the export of each volume with connected
    attachments (Cinder's ensure_export), so hosts attached before a restart reach their
    volumes again with the connection info they hold; how many volumes.

    A volume whose export cannot be ensured is logged and keeps its status (the host may
    still reach it), as Cinder's init_host.
    """
    ensured = 0
    for volume in volumes:
        try:
            with manager.coordinator.get_lock(locks.volume_connections(volume.id)):
                manager.driver.ensure_export(base.VolumeRef.of(volume))
        except Exception:
            LOG.exception('Volume %s: failed to re-export it', volume.id)
            continue
        ensured += 1
    LOG.info('Re-exported %d attached volumes on %s', ensured, manager.host)
    return ensured
