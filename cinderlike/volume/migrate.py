"""cinderlike-volume: host-assisted migration, run by the source volume's backend (Cinder's
migrate_volume, _migrate_volume_generic, migrate_volume_completion).

The scheduler inserted the destination row (with its capacity claim) on the destination
pool. Here the destination is created there, both volumes are attached to this host with
its own connector and the bytes copied; an attached volume is handed to Nova's swap instead,
whose callback completes it. Completion swaps the rows' places (db/migrations_status.swap)
and deletes the source's old data under the destination row's id, which gives the source
pool's claim back; a failure deletes the destination, which gives its claim back.
"""

import contextlib
import time

from oslo_log import log as logging

from cinderlike import connector as host_connector
from cinderlike import exception
from cinderlike.db import attachments as db_attachments
from cinderlike.db import migrations_status as db_migrations
from cinderlike.db import volumes as db_volumes
from cinderlike.states.volumes import MigrationStatus, Status
from cinderlike.volume import rpcapi

LOG = logging.getLogger(__name__)

# Bytes copied per read/write; the connector's NBD client pipelines within one chunk.
COPY_CHUNK = 4 * 1024 * 1024
_ZEROS = bytes(COPY_CHUNK)


def migrate_volume(manager, ctx, *, volume_id: str, target_id: str, force_host_copy: bool,
                   new_type_id: str | None, reservations: list[str]) -> bool:
    """Run a `starting` migration; True when it finished here (an attached volume's
    finishes in Nova's completion callback). Every migration is host-assisted here (no
    driver migrates by itself), so *force_host_copy* changes nothing but is recorded."""
    request = {'target_id': target_id, 'new_type_id': new_type_id,
               'reservations': list(reservations), 'force_host_copy': force_host_copy}
    volume, hold = db_migrations.begin_run(manager.db, volume_id=volume_id,
                                           service_id=manager.service_id, request=request)
    if hold is None:
        LOG.warning('Volume %s: migration is %s, not starting; nothing to do', volume_id,
                    volume.migration_status)
        return False
    api = rpcapi.VolumeAPI(manager.conf)
    try:
        manager.require_driver()
        target = _create_target(manager, ctx, api, volume, target_id)
        attachments = db_attachments.of_volume(manager.db, volume_id=volume_id)
        if attachments:
            _swap_in_nova(manager, ctx, volume, target, attachments)
            return False
        copy_volume_data(manager, ctx, api, volume, target)
    except Exception:
        LOG.exception('Volume %s: migration to %s failed', volume_id, target_id)
        fail(manager, ctx, volume_id=volume_id, hold=hold, request=request)
        return False
    try:
        complete(manager, ctx, volume_id=volume_id, target_id=target_id, error=False)
    except exception.InvalidVolume as moved_on:
        # NOTE(fencing): another service took the migration over (or it was reset) while
        # the bytes were copied: its holder settles it.
        LOG.warning('Volume %s: migration not completed here: %s', volume_id, moved_on)
        return False
    return True


def _create_target(manager, ctx, api, volume, target_id):
    """Cast the destination's create and wait until it is `available`.

    :raises VolumeMigrationFailed: it ended in error, or took longer than
        migration_create_volume_timeout_secs.
    """
    target = db_migrations.get_target(manager.db, source_id=volume.id, target_id=target_id)
    api.create_volume(ctx, volume_id=target.id, host=target.host, request_spec=None,
                      filter_properties={}, cluster_name=target.cluster_name,
                      allow_reschedule=False)
    deadline = time.monotonic() + manager.conf.migration_create_volume_timeout_secs
    tries = 0
    while True:
        target = db_migrations.get_target(manager.db, source_id=volume.id,
                                          target_id=target_id)
        if target.status == Status.AVAILABLE:
            return target
        if target.status != Status.CREATING:
            raise exception.VolumeMigrationFailed(
                reason='failed to create new_volume on destination')
        if time.monotonic() > deadline:
            raise exception.VolumeMigrationFailed(
                reason='timeout creating new_volume on destination')
        tries += 1
        manager._sleep(min(tries ** 2, 5) / 10)


@contextlib.contextmanager
def _attached(manager, ctx, api, volume, *, writable: bool):
    """*volume* as a file on this host while the block runs; detached in every outcome."""
    connector = host_connector.properties(manager.conf, manager.host)
    route = {'host': volume.host, 'cluster_name': volume.cluster_name}
    info = api.initialize_connection(ctx, volume_id=volume.id, connector=connector, **route)
    try:
        with host_connector.open_volume(info, writable=writable,
                                        initiator=connector['initiator']) as opened:
            yield opened
    finally:
        try:
            api.terminate_connection(ctx, volume_id=volume.id, connector=connector, **route)
            api.remove_export(ctx, volume_id=volume.id, **route)
        except Exception:
            LOG.exception('Volume %s: could not detach it from %s after the copy', volume.id,
                          manager.host)


def copy_volume_data(manager, ctx, api, source, target) -> int:
    """Cinder's _copy_volume_data: attach both to this host and copy the source's bytes;
    how many were written.

    NOTE(sparse): the destination was just created, so it reads as zeros: chunks of zeros
    are skipped (as Cinder's sparse copy for thin volumes), which keeps a thin destination
    thin and spares writing the unused part of the volume.
    """
    copied = offset = 0
    with _attached(manager, ctx, api, source, writable=False) as reader, \
            _attached(manager, ctx, api, target, writable=True) as writer:
        while chunk := reader.read(COPY_CHUNK):
            if chunk != _ZEROS[:len(chunk)]:
                writer.seek(offset)
                writer.write(chunk)
                copied += len(chunk)
            offset += len(chunk)
        writer.flush()
    LOG.info('Volume %(id)s: copied %(bytes)d bytes to %(target)s',
             {'id': source.id, 'bytes': copied, 'target': target.id})
    return copied


def _swap_in_nova(manager, ctx, volume, target, attachments) -> None:
    """Ask Nova to swap every server onto the destination; it calls completion back.

    :raises VolumeMigrationFailed: an attachment is not a server's, or Nova refused.
    """
    # NOTE(rss): imported on use; keystoneauth1 (requests) stays out of a volume service
    # that never calls Nova.
    from cinderlike.compute import nova
    compute = nova.API(manager.conf)
    for attachment in attachments:
        if not attachment.instance_uuid:
            raise exception.VolumeMigrationFailed(
                reason=f'attachment {attachment.id} is not a server\'s; Nova cannot swap it')
        compute.update_server_volume(ctx, attachment.instance_uuid, volume.id, target.id)
    LOG.info('Volume %(id)s: Nova asked to swap to %(target)s',
             {'id': volume.id, 'target': target.id})


def fail(manager, ctx, *, volume_id: str, hold, request: dict) -> None:
    """The migration ends in error and every destination row is deleted (claim back)."""
    api = rpcapi.VolumeAPI(manager.conf)
    targets = db_migrations.fail(manager.db, source_id=volume_id, hold=hold,
                                 rollback=request.get('reservations') or ())
    for target in targets:
        api.delete_volume(ctx, volume_id=target.id, host=target.host,
                          cluster_name=target.cluster_name)


def complete(manager, ctx, *, volume_id: str, target_id: str, error: bool) -> str:
    """Finish the migration onto *target_id* (or, with *error*, undo it); the volume id
    that stays (Cinder's migrate_volume_completion).

    :raises VolumeNotFound: no such source or destination; InvalidVolume: the migration
        moved on (another service took it over, or it ended).
    """
    source = db_volumes.get(manager.db, volume_id=volume_id)
    target = db_migrations.get_target(manager.db, source_id=volume_id, target_id=target_id)
    hold, request = db_migrations.current_hold(manager.db, volume_id=volume_id)
    api = rpcapi.VolumeAPI(manager.conf)
    if source.migration_status != MigrationStatus.MIGRATING or hold is None:
        raise exception.InvalidVolume(reason=f'Volume {volume_id} is not being migrated.')
    if error:
        fail(manager, ctx, volume_id=volume_id, hold=hold, request=request)
        return volume_id
    if not db_migrations.swap(manager.db, source=source, target=target, hold=hold,
                              new_type_id=request.get('new_type_id'),
                              commit=request.get('reservations') or ()):
        raise exception.InvalidVolume(reason=f'Volume {volume_id} is not being migrated.')
    # NOTE(swap): the destination row now names the source's old data and place.
    api.delete_volume(ctx, volume_id=target.id, host=source.host,
                      cluster_name=source.cluster_name)
    manager.notifier.info(ctx, source, 'migrate.end' if not request.get('new_type_id')
                          else 'retype', reload=True)
    return volume_id


def settle_interrupted(manager, ctx, machine, volume, row, hold) -> None:
    """Recovery (a settler of volume/recovery.py): a migration whose service stopped.

    A detached volume's copy is lost: the migration ends in error and its destination is
    deleted. An attached one waits for Nova's completion callback, which finds the
    workers row under its new holder (current_hold), so it is left running.
    """
    if db_attachments.of_volume(manager.db, volume_id=volume.id):
        LOG.warning('Volume %s: migration interrupted while Nova swaps it; waiting for '
                    'its completion', volume.id)
        return
    LOG.warning('Volume %s: migration interrupted on service %s; it ends in error',
                volume.id, row.service_id)
    fail(manager, ctx, volume_id=volume.id, hold=hold, request=row.request or {})
