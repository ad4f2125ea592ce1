"""cinderlike-api: volume transfer rules (Cinder's transfer/api.py).

The auth key is random, returned once and stored only as HMAC-SHA1(salt, key). Accepting
moves the volume, its snapshots and their quota usage to the accepting project in one
transaction, so a lost race or a refused quota leaves everything as it was. An encrypted
volume (3.70) takes its key along: offering, withdrawing and accepting each move it with
the key manager, as Cinder's keymgr/transfer.py.
"""

import hashlib
import hmac
import os

from oslo_log import log as logging

from cinderlike import exception, key_manager, quota
from cinderlike.api import listing
from cinderlike.db import reservations as db_reservations
from cinderlike.db import transfers as db_transfers
from cinderlike.db import volumes as db_volumes
from cinderlike.states import volumes as states

LOG = logging.getLogger(__name__)


def random_string(length: int) -> str:
    """*length* hexadecimal characters from the OS's random source (Cinder's key and salt)."""
    # NOTE(keyboard): hex digits only, so the recipient can type the key anywhere.
    text = ''
    while len(text) < length:
        text += hashlib.sha224(os.urandom(255)).hexdigest()
    return text[:length]


def crypt_hash(salt, auth_key) -> str:
    """HMAC-SHA1 of *auth_key* keyed with *salt*, hex; integers count as their digits."""
    salt = salt if isinstance(salt, bytes) else str(salt).encode('utf-8')
    key = auth_key if isinstance(auth_key, bytes) else str(auth_key).encode('utf-8')
    return hmac.new(salt, key, hashlib.sha1).hexdigest()


def scope(ctx) -> str | None:
    """The project a caller's transfer lookups are limited to; None for admins."""
    return None if ctx.is_admin else ctx.project_id


def get(db, ctx, *, transfer_id: str):
    """:raises TransferNotFound: also for another project's transfer, as Cinder."""
    return db_transfers.get(db, transfer_id=transfer_id, project_id=scope(ctx))


def get_all(db, ctx, *, filters: dict, marker=None, limit=None, offset=None, sort=None):
    """Open transfers of the caller's project; every project's for an admin's all_tenants."""
    filters = dict(filters)
    all_tenants = listing.bool_param(filters, 'all_tenants')
    filters.pop('all_tenants', None)
    # NOTE(project_id): as Cinder, an admin listing all tenants may narrow it to one
    # project's volumes; everyone else sees their own project whatever they ask.
    project_id = filters.pop('project_id', None)
    if not (ctx.is_admin and all_tenants):
        project_id = ctx.project_id
    return db_transfers.get_all(db, project_id=project_id or None, filters=filters,
                                marker=marker, limit=limit, offset=offset, sort=sort)


def _refuse_encrypted(volume, *, no_snapshots: bool, allow_encrypted: bool) -> None:
    if volume.encryption_key_id is None:
        return
    if not allow_encrypted:
        raise exception.InvalidVolume(reason='transferring encrypted volume is not supported')
    if no_snapshots:
        raise exception.InvalidVolume(reason='transferring an encrypted volume without its '
                                             'snapshots is not supported')


def _move_key(conf, db, ctx, *, volume) -> None:
    """Cinder's KeyTransfer.transfer_key: the encrypted *volume*'s key stored anew, the
    volume and its snapshots pointed at the copy, the old key deleted.

    NOTE(service_context): Cinder stores the copy as its service user while the offer is
    open and as the recipient once accepted; ConfKeyManager's one key belongs to no one,
    so its store answers FIXED_KEY_ID again and its delete keeps the key.
    :raises KeyManagerError: nothing moved (a 500, as Cinder's castellan error).
    """
    if volume.encryption_key_id is None:
        return
    keys = key_manager.from_conf(conf)
    old = volume.encryption_key_id
    new = keys.store(ctx, keys.get(ctx, old))
    db_transfers.set_encryption_key(db, volume_id=volume.id, key_id=new)
    keys.delete(ctx, old)
    volume.encryption_key_id = new


def create(conf, db, ctx, *, volume, name: str | None, no_snapshots: bool,
           allow_encrypted: bool, notifier):
    """Offer *volume*; (the transfer row, its auth key). The key is not kept anywhere.

    :raises InvalidVolume: not available, encrypted, or lost a race; InvalidSnapshot: a
        snapshot that would travel is not available.
    """
    if not states.TRANSITIONS['transfer'].allows(volume.status):
        raise exception.InvalidVolume(reason='status must be available')
    _refuse_encrypted(volume, no_snapshots=no_snapshots, allow_encrypted=allow_encrypted)
    if not no_snapshots:
        blocked = db_transfers.unmovable_snapshot(db, volume_id=volume.id)
        if blocked is not None:
            raise exception.InvalidSnapshot(
                reason=f'snapshot: {blocked.id} status must be available')
    notifier.info(ctx, volume, 'transfer.create.start')
    salt = random_string(conf.volume_transfer_salt_length)
    auth_key = random_string(conf.volume_transfer_key_length)
    # NOTE(expiry): Cinder never sets expires_at either (its TODO).
    transfer = db_transfers.create(db, values={
        'volume_id': volume.id, 'display_name': name, 'salt': salt,
        'crypt_hash': crypt_hash(salt, auth_key), 'expires_at': None,
        'no_snapshots': no_snapshots, 'source_project_id': volume.project_id})
    try:
        _move_key(conf, db, ctx, volume=volume)
    except Exception:
        LOG.error('Failed to transfer keys for %s', volume.id)
        db_transfers.destroy(db, transfer=transfer)
        raise
    notifier.info(ctx, volume, 'transfer.create.end')
    return transfer, auth_key


def delete(conf, db, ctx, *, transfer, volume, notifier) -> None:
    """Withdraw the offer; the volume (and its key) is its owner's again.

    :raises TransferNotFound: when it was accepted or deleted meanwhile.
    """
    notifier.info(ctx, volume, 'transfer.delete.start')
    db_transfers.destroy(db, transfer=transfer)
    # NOTE(key_order): after the row is closed (Cinder moves the key first), so that an
    # accept winning the race keeps the key it took.
    _move_key(conf, db, ctx, volume=volume)
    notifier.info(ctx, volume, 'transfer.delete.end')


def _deltas(conf, db, *, volume, snapshots) -> list[dict[str, int]]:
    """What the volume, then its travelling snapshots, count in a project (per type too)."""
    type_name = db_volumes.get_type_names(db, type_ids={volume.volume_type_id}).get(
        volume.volume_type_id)
    steps = [quota.volume_deltas(size=volume.size, volume_type_name=type_name)]
    if snapshots:
        steps.append(quota.volume_deltas(
            size=sum(s.volume_size or 0 for s in snapshots), volume_type_name=type_name,
            count=len(snapshots), snapshot=True, gigabytes=not conf.no_snapshot_gb_quota))
    return steps


def _reserve(conf, db, ctx, steps) -> list[str]:
    """Reserve each step in the accepting project, as Cinder: the volume's, then the
    snapshots'. :raises OverQuota: (413) with nothing left reserved."""
    reservations: list[str] = []
    try:
        for deltas in steps:
            reservations += quota.reserve(db, ctx, conf=conf, project_id=ctx.project_id,
                                          deltas=deltas)
    except exception.OverQuota:
        quota.rollback(db, ctx, reservations)
        raise
    return reservations


def _move_usage(db, ctx, *, donor: str, steps, reservations, session) -> None:
    """Commit the accepting project's reservations and take the usage off the donor, each
    project's usage rows locked in project-id order."""
    given: dict[str, int] = {}
    for deltas in steps:
        for resource, amount in deltas.items():
            given[resource] = given.get(resource, 0) - amount
    moves = [(ctx.project_id, lambda: quota.commit(db, ctx, reservations, session=session)),
             (donor, lambda: quota.release_usage(db, project_id=donor, deltas=given,
                                                 session=session))]
    # NOTE(lock_order): two accepts crossing between the same two projects would deadlock
    # if each locked its own project's usage rows first.
    for _project, move in sorted(moves, key=lambda pair: pair[0]):
        move()


def accept(conf, db, ctx, *, transfer_id: str, auth_key, notifier):
    """Take the offered volume into the caller's project; the transfer as it was offered.

    :raises TransferNotFound, InvalidAuthKey, InvalidVolume, InvalidSnapshot:
    :raises VolumeSizeExceedsLimit, VolumeLimitExceeded, VolumeSizeExceedsAvailableQuota,
        SnapshotLimitExceeded: (413) nothing moved.
    """
    # NOTE(elevated): any project holding the id and the key may accept, so the lookups
    # are not limited to the caller's project.
    transfer = db_transfers.get(db, transfer_id=transfer_id)
    if not hmac.compare_digest(crypt_hash(transfer.salt, auth_key), transfer.crypt_hash or ''):
        LOG.error('Attempt to transfer %s with invalid auth key.', transfer_id)
        raise exception.InvalidAuthKey(
            reason=f'Attempt to transfer {transfer_id} with invalid auth key.')
    volume = db_volumes.get(db, volume_id=transfer.volume_id)
    quota.check_volume_size(db, conf=conf, project_id=ctx.project_id, size=volume.size)
    snapshots = ([] if transfer.no_snapshots else
                 db_transfers.snapshots_of(db, volume_id=volume.id))
    steps = _deltas(conf, db, volume=volume, snapshots=snapshots)
    # NOTE(order): reserved first, in transactions of their own, as Cinder: a project's
    # first usage rows are counted from the tables, which must not hold the volume yet,
    # and their creation may deadlock on InnoDB and is retried there.
    reservations = _reserve(conf, db, ctx, steps)
    notifier.info(ctx, volume, 'transfer.accept.start')

    def move(session):
        _move_usage(db, ctx, donor=volume.project_id, steps=steps,
                    reservations=reservations, session=session)
        db_transfers.accept(db, transfer=transfer, snapshots=snapshots, user_id=ctx.user_id,
                            project_id=ctx.project_id, session=session)
    key_moved = False
    try:
        if volume.status == states.Status.MAINTENANCE:
            raise exception.InvalidVolume(
                reason='The volume cannot accept transfer in maintenance mode.')
        # NOTE(driver_hook): Cinder calls the backend's accept_transfer here, for drivers
        # that tie export credentials to the project; the fake and file drivers tie none.
        _move_key(conf, db, ctx, volume=volume)
        key_moved = True
        db_reservations.retried(db, move)
    except Exception:
        if key_moved:
            # NOTE(key_back): as Cinder, another move gives the key back to the offer.
            _move_key(conf, db, ctx, volume=volume)
        quota.rollback(db, ctx, reservations)
        raise
    LOG.info('Volume %s has been transferred.', volume.id)
    notifier.info(ctx, volume, 'transfer.accept.end', reload=True)
    return transfer
