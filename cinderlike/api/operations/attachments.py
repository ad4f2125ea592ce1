"""cinderlike-api: attachment business rules (Cinder's volume/api.py attachment_*).

Reserve and the status changes are db/attachments.py transitions; connecting and
disconnecting a host are calls to the volume's backend (or cluster), which return the
driver's connection info or its error.
"""

from oslo_log import log as logging

from cinderlike import exception, notifications
from cinderlike.api import casting
from cinderlike.api.operations import volumes as volume_operations
from cinderlike.db import attachments as db_attachments
from cinderlike.db import volumes as db_volumes
from cinderlike.policies import attachments as policy
from cinderlike.states import attachments as states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

# What a connector must name (the connection lock and the attachment's host are keyed on it).
CONNECTOR_REQUIRED = ('host',)


def check_connector(connector) -> None:
    """:raises InvalidInput: (Cinder's InvalidConnectorException text) for a connector
    without a host."""
    given = connector if isinstance(connector, dict) else {}
    missing = [key for key in CONNECTOR_REQUIRED
               if not isinstance(given.get(key), str) or not given[key]]
    if missing:
        raise exception.InvalidInput(
            reason=f"Connector doesn't have required information: {', '.join(missing)}")


def get(db, ctx, *, attachment_id: str):
    """:raises VolumeAttachmentNotFound: also for another project's attachment."""
    return db_attachments.get(db, attachment_id=attachment_id,
                              project_id=volume_operations.scope(ctx))


def get_all(db, ctx, *, all_tenants: bool, **kwargs) -> list:
    """A page of attachments: the caller's project, every project for an admin's
    all_tenants."""
    project = None if (ctx.is_admin and all_tenants) else ctx.project_id
    return db_attachments.get_all(db, project_id=project, **kwargs)


def _update(db, rpc, ctx, *, volume, attachment_id: str, connector: dict) -> dict:
    return rpc.volume.attachment_update(ctx, volume_id=volume.id, attachment_id=attachment_id,
                                        connector=connector, host=volume.host,
                                        cluster_name=volume.cluster_name)


def create(db, rpc, enforcer, ctx, *, volume_id: str, instance_uuid: str | None,
           connector: dict | None, mode: str | None):
    """Reserve an attachment (and connect *connector*'s host when given); the new row.

    :raises VolumeNotFound, InvalidVolume, InvalidInput: (nothing is written for these)
    """
    volume = volume_operations.get(db, ctx, volume_id=volume_id)
    target = {'project_id': volume.project_id, 'user_id': volume.user_id}
    enforcer.authorize(ctx, policy.CREATE_POLICY, target)
    if connector:
        check_connector(connector)
    if volume.multiattach and volume.status == volume_states.Status.IN_USE and volume.bootable:
        enforcer.authorize(ctx, policy.MULTIATTACH_BOOTABLE_VOLUME_POLICY, target)
    admin = db_volumes.get_metadata(db, volume_ids=[volume_id], admin=True)[volume_id]
    # NOTE(cinder): a read-only volume (admin metadata, deprecated) overrides the mode.
    attach_mode = (states.READ_ONLY if db_volumes.is_readonly(admin)
                   else mode or states.MODE_UNSET)
    row = db_attachments.reserve(db, volume_id=volume_id, instance_uuid=instance_uuid,
                                 attach_mode=attach_mode, connecting=bool(connector))
    if connector:
        casting.call(lambda: _update(db, rpc, ctx, volume=volume, attachment_id=row.id,
                                     connector=connector),
                     undo=lambda: _undo_connect(db, attachment_id=row.id),
                     resource='Attachment', resource_id=row.id, what='attachment_update')
        # NOTE(answer): the connect handed its workers row back for us; it goes before we
        # answer, so a client that got the attachment's id is never undone by a sweep, and an
        # API that dies before this leaves the row to the sweep (error_attaching). Only a
        # death between this delete and the answer, microseconds, still loses the id.
        if not db_attachments.connect_answered(db, attachment_id=row.id):
            LOG.warning('Attachment %s: a sweep or a detach took it before its create was '
                        'answered; answering it as stored', row.id)
    return db_attachments.get(db, attachment_id=row.id)


def _undo_connect(db, *, attachment_id: str) -> bool:
    """An attachment create whose connect was not answered: the reservation removed (True);
    False when the volume service had taken the connect up.

    NOTE(lost_reply): then the caller gets the broker's 503 and never learns the
    attachment's id, so no consumer would complete or delete it; its (forced) detach is
    begun instead, taking the attachment's workers row with no service (the connect's, or
    the one a finished connect handed back), and the sweep of the volume's backend
    disconnects and deletes it after `lost_operation_timeout` (a connect still running is
    fenced by that row).
    """
    if db_attachments.undo_reserve(db, attachment_id=attachment_id):
        return True
    try:
        db_attachments.begin_detach(db, attachment_id=attachment_id, force=True)
    except exception.VolumeAttachmentNotFound:
        pass
    return False


def update(db, rpc, enforcer, ctx, *, attachment_id: str, connector: dict):
    """Connect *connector*'s host for the attachment; the row with its connection info.

    :raises VolumeAttachmentNotFound, InvalidInput, ResourceConflict: (409: the volume is
        in error, or another host is already connected to a volume that is not multiattach)
    """
    attachment = get(db, ctx, attachment_id=attachment_id)
    enforcer.authorize(ctx, policy.UPDATE_POLICY, {'project_id': ctx.project_id})
    check_connector(connector)
    volume = db_volumes.get(db, volume_id=attachment.volume_id)
    if 'error' in (volume.status or ''):
        raise exception.ResourceConflict(
            reason=f'Volume attachments can not be updated if the volume is in an error '
                   f'state. The Volume {volume.id} currently has a status of: '
                   f'{volume.status} ')
    others = [a for a in db_attachments.of_volume(db, volume_id=volume.id)
              if a.id != attachment_id and a.connection_info]
    if others and not volume.multiattach:
        raise exception.ResourceConflict(
            reason=f'duplicate connectors detected on volume {volume.id}')
    _update(db, rpc, ctx, volume=volume, attachment_id=attachment_id, connector=connector)
    return db_attachments.get(db, attachment_id=attachment_id)


def complete(db, ctx, *, attachment_id: str, enforcer, notifier) -> None:
    """os-complete (3.44): the attachment `attached`, the volume `in-use`, attach.end.

    :raises VolumeAttachmentNotFound, InvalidVolume:
    """
    attachment = get(db, ctx, attachment_id=attachment_id)
    enforcer.authorize(ctx, policy.COMPLETE_POLICY, {'project_id': ctx.project_id})
    db_attachments.complete(db, attachment_id=attachment.id)
    notifier.info(ctx, db_volumes.get(db, volume_id=attachment.volume_id), 'attach.end')


def delete(db, rpc, ctx, *, attachment_id: str, notifier: notifications.VolumeNotifier,
           force: bool = False) -> list:
    """Disconnect and delete the attachment; the volume's attachments that are left.

    A reserved attachment was never connected, so no backend is asked.
    :raises VolumeAttachmentNotFound, InvalidVolume; what the backend raised (the
        attachment is then `error_detaching`)
    """
    attachment = get(db, ctx, attachment_id=attachment_id)
    volume = db_volumes.get(db, volume_id=attachment.volume_id)
    before = db_attachments.begin_detach(db, attachment_id=attachment_id, force=force)
    if attachment.attach_status == states.Status.RESERVED or not volume.host:
        notifier.info(ctx, volume, 'detach.start')
    else:
        casting.call(lambda: rpc.volume.attachment_delete(
            ctx, volume_id=volume.id, attachment_id=attachment_id, host=volume.host,
            cluster_name=volume.cluster_name), undo=lambda: db_attachments.undo_detach(
                db, attachment_id=attachment_id, status=before, force=force),
            resource='Attachment', resource_id=attachment_id, what='attachment_delete')
    left = db_attachments.finish_detach(db, volume_id=volume.id, attachment_id=attachment_id)
    notifier.info(ctx, volume, 'detach.end', reload=True)
    return left


# --- the legacy attach actions (Cinder's reserve_volume ... detach) -----------------

def _remote(prefix: str, error: exception.CinderlikeException, refusals: tuple):
    """Cinder's 400 for a refusal the volume service sent back ("<prefix> - <class>: <msg>")."""
    if isinstance(error, refusals):
        # NOTE(remote): oslo.messaging re-raises a remote error as a subclass named
        # '<class>_Remote'; Cinder names the class itself.
        name = type(error).__name__.removesuffix('_Remote')
        return exception.Invalid(f'{prefix} - {name}: {error.msg}')
    return error


def _not_in_maintenance(volume, text: str) -> None:
    if volume.status == volume_states.Status.MAINTENANCE:
        raise exception.InvalidVolume(reason=text)


def reserve(db, ctx, *, volume) -> None:
    """os-reserve: `attaching`. :raises InvalidVolume:"""
    action = 'reserve_multiattach' if volume.multiattach else 'reserve'
    db_volumes.MACHINE.begin(db, row_id=volume.id, action=action,
                             project_id=volume_operations.scope(ctx))


def unreserve(db, ctx, *, volume) -> None:
    """os-unreserve: back to `in-use` or `available` (nothing to do unless attaching)."""
    db_attachments.unreserve(db, volume_id=volume.id)


def begin_detaching(db, ctx, *, volume) -> None:
    """os-begin_detaching: `detaching`; a migrating volume keeps its status silently.

    :raises InvalidVolume:
    """
    try:
        db_volumes.MACHINE.begin(db, row_id=volume.id, action='begin_detaching')
    except exception.InvalidVolume:
        if not volume_states.migrating(volume.migration_status):
            raise


def roll_detaching(db, ctx, *, volume) -> None:
    """os-roll_detaching: back to `in-use` when detaching (otherwise nothing, as Cinder)."""
    try:
        db_volumes.MACHINE.begin(db, row_id=volume.id, action='roll_detaching')
    except exception.InvalidVolume:
        LOG.debug('Volume %s was not detaching, nothing to roll back', volume.id)


def initialize_connection(db, rpc, ctx, *, volume, connector) -> dict:
    """os-initialize_connection: the backend's connection info for *connector*.

    :raises InvalidInput, InvalidVolume: (maintenance); HTTP 500 from the backend
    """
    _not_in_maintenance(volume, 'The volume connection cannot be initialized in '
                                'maintenance mode.')
    check_connector(connector)
    info = rpc.volume.initialize_connection(ctx, volume_id=volume.id, connector=connector,
                                            host=volume.host, cluster_name=volume.cluster_name)
    info['enforce_multipath'] = connector.get('enforce_multipath', False)
    return info


def terminate_connection(db, rpc, ctx, *, volume, connector, force: bool = False) -> None:
    """os-terminate_connection: the backend stops serving *connector*, then unreserve."""
    rpc.volume.terminate_connection(ctx, volume_id=volume.id, connector=connector,
                                    force=force, host=volume.host,
                                    cluster_name=volume.cluster_name)
    unreserve(db, ctx, volume=volume)


def attach(db, rpc, ctx, *, volume, instance_uuid: str | None, host_name: str | None,
           mountpoint: str, mode: str) -> None:
    """os-attach: record the attachment on the volume's backend.

    :raises InvalidVolume, InvalidVolumeAttachMode: (400 texts as Cinder's)
    """
    _not_in_maintenance(volume, 'The volume cannot be attached in maintenance mode.')
    # NOTE(cinder): as Cinder, the volume gets readonly=False unless it has a flag already.
    admin = db_volumes.get_metadata(db, volume_ids=[volume.id], admin=True)[volume.id]
    flagged = db_volumes.READONLY_KEY not in admin
    if flagged:
        db_volumes.update_metadata(db, volume_id=volume.id, admin=True,
                                   metadata=db_volumes.readonly_flag(False))
    if db_volumes.is_readonly(admin) and mode != states.READ_ONLY:
        raise exception.InvalidVolumeAttachMode(mode=mode, volume_id=volume.id)
    attached = len(db_attachments.of_volume(db, volume_id=volume.id))

    def undo():
        return not flagged or db_attachments.undo_readonly_flag(
            db, volume_id=volume.id, attachments=attached)
    try:
        casting.call(lambda: rpc.volume.attach_volume(
            ctx, volume_id=volume.id, instance_uuid=instance_uuid, host_name=host_name,
            mountpoint=mountpoint, mode=mode, host=volume.host,
            cluster_name=volume.cluster_name), undo=undo, resource='Volume',
            resource_id=volume.id, what='attach_volume')
    except exception.CinderlikeException as error:
        raise _remote('Error attaching volume', error, (
            exception.InvalidVolume, exception.InvalidUUID,
            exception.InvalidVolumeAttachMode)) from error


def detach(db, rpc, ctx, *, volume, attachment_id: str | None,
           prefix: str = 'Error detaching volume') -> None:
    """os-detach: the backend removes the export and the attachment.

    :raises InvalidVolume, InvalidInput: (another volume's attachment)
    """
    _not_in_maintenance(volume, 'The volume cannot be detached in maintenance mode.')
    if attachment_id is not None:
        try:
            attachment = db_attachments.get(db, attachment_id=attachment_id)
        except exception.VolumeAttachmentNotFound:
            attachment = None
        if attachment is not None and attachment.volume_id != volume.id:
            raise exception.InvalidInput(reason='Mismatched volume and attachment')
    try:
        rpc.volume.detach_volume(ctx, volume_id=volume.id, attachment_id=attachment_id,
                                 host=volume.host, cluster_name=volume.cluster_name)
    except exception.CinderlikeException as error:
        raise _remote(prefix, error, (exception.VolumeAttachmentNotFound,
                                      exception.InvalidVolume)) from error


def force_detach(db, rpc, ctx, *, volume, connector, attachment_id: str | None) -> None:
    """os-force_detach (admin): terminate the connection, then detach whatever the state."""
    terminate_connection(db, rpc, ctx, volume=volume, connector=connector, force=True)
    detach(db, rpc, ctx, volume=volume, attachment_id=attachment_id,
           prefix='Error force detaching volume')
