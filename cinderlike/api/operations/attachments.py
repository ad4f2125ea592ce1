"""cinderlike-api: attachment business rules (Cinder's volume/api.py attachment_*).

Reserve and the status changes are db/attachments.py transitions; connecting and
disconnecting a host are calls to the volume's backend (or cluster), which return the
driver's connection info or its error.
"""

from oslo_log import log as logging

from cinderlike import exception, notifications
from cinderlike.api.operations import volumes as volume_operations
from cinderlike.db import attachments as db_attachments
from cinderlike.db import volumes as db_volumes
from cinderlike.policies import attachments as policy
from cinderlike.states import attachments as states
from cinderlike.states import volumes as volume_states

LOG = logging.getLogger(__name__)

# What a connector must name (the connection lock and the attachment's host are keyed on it).
CONNECTOR_REQUIRED = ('host',)


def check_connector(connector: dict) -> None:
    """:raises InvalidInput: (Cinder's InvalidConnectorException text) for a connector
    without a host."""
    missing = [key for key in CONNECTOR_REQUIRED
               if not isinstance(connector.get(key), str) or not connector[key]]
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
    attach_mode = (states.READ_ONLY if admin.get('readonly') == 'True'
                   else mode or states.MODE_UNSET)
    row = db_attachments.reserve(db, volume_id=volume_id, instance_uuid=instance_uuid,
                                 attach_mode=attach_mode)
    if connector:
        _update(db, rpc, ctx, volume=volume, attachment_id=row.id, connector=connector)
    return db_attachments.get(db, attachment_id=row.id)


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
    db_attachments.begin_detach(db, attachment_id=attachment_id, force=force)
    if attachment.attach_status == states.Status.RESERVED or not volume.host:
        notifier.info(ctx, volume, 'detach.start')
    else:
        rpc.volume.attachment_delete(ctx, volume_id=volume.id, attachment_id=attachment_id,
                                     host=volume.host, cluster_name=volume.cluster_name)
    left = db_attachments.finish_detach(db, volume_id=volume.id, attachment_id=attachment_id)
    notifier.info(ctx, volume, 'detach.end', reload=True)
    return left
