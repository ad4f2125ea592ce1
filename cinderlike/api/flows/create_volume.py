"""cinderlike-api: the create-volume flow — validate the request, check the quota limits,
insert the row `creating` with its quota reserved and committed in that transaction, cast to
the scheduler.

A linear flow of taskflow tasks, as Cinder's api/flows/create_volume.py (run by
cinderlike/flow.py): a failing task reverts the ones before it, so a refused request writes
nothing and holds no quota. AT_ONCE reads the request's spec and, for most requests, writes
the volume in the same transaction; FLOW goes on from that spec for the others (a key made,
then the insert in a transaction of its own).
"""

import dataclasses

from oslo_log import log as logging
from oslo_utils import strutils
from taskflow import task
from taskflow.types import failure as tf_failure

from cinderlike import exception, flow, key_manager, quota
from cinderlike.api import casting, zones
from cinderlike.db import backups as db_backups
from cinderlike.db import encryption as db_encryption
from cinderlike.db import groups as db_groups
from cinderlike.db import pools as db_pools
from cinderlike.db import reservations as db_reservations
from cinderlike.db import settle as db_settle
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.policies import volumes as policy
from cinderlike.states.backups import Status as BackupStatus
from cinderlike.states.groups import Status as GroupStatus
from cinderlike.states.snapshots import Status as SnapshotStatus
from cinderlike.states.volumes import AttachStatus, Status

LOG = logging.getLogger(__name__)
SOURCE_STATUSES = (Status.AVAILABLE, Status.IN_USE)


@dataclasses.dataclass
class CreateRequest:
    """What POST /volumes asked for, after schema validation."""

    size: object = None
    name: str | None = None
    description: str | None = None
    volume_type: str | None = None
    availability_zone: str | None = None
    metadata: dict | None = None
    source_volid: str | None = None
    snapshot_id: str | None = None
    backup_id: str | None = None
    image_ref: str | None = None
    scheduler_hints: dict | None = None
    group_id: str | None = None


def _size(raw, source, snapshot, backup=None) -> int:
    """Cinder's size rules; a clone (a volume from a snapshot or a backup) defaults to, and
    may not be smaller than, its source (the snapshot's volume_size, the backup's size)."""
    if raw is None and snapshot is not None:
        return snapshot.volume_size
    if raw is None and backup is not None:
        return backup.size
    if raw is None and source is not None:
        return source.size
    if raw is None or not strutils.is_int_like(raw) or int(raw) <= 0:
        raise exception.InvalidInput(
            reason=f'Invalid volume size provided for create request: {raw} (size argument '
                   'must be an integer (or string representation of an integer) and greater '
                   'than zero).')
    size = int(raw)
    if snapshot is not None and size < snapshot.volume_size:
        raise exception.InvalidInput(
            reason=f"Volume size '{size}'GB cannot be smaller than the snapshot size "
                   f'{snapshot.volume_size}GB. They must be >= original snapshot size.')
    if backup is not None and size < backup.size:
        raise exception.InvalidInput(
            reason=f'Volume size {size}GB cannot be smaller than the backup size '
                   f'{backup.size}GB. It must be >= backup size.')
    if source is not None and size < source.size:
        raise exception.InvalidInput(
            reason=f"Volume size '{size}'GB cannot be smaller than original volume size  "
                   f'{source.size}GB. They must be >= original volume size.')
    return size


def _exclusive_source(request: CreateRequest) -> None:
    """Cinder's check_exclusive_options; then the sources cinderlike cannot serve yet.

    :raises InvalidInput:
    """
    given = {'snapshot': request.snapshot_id, 'imageRef': request.image_ref,
             'source volume': request.source_volid, 'backup': request.backup_id}
    if sum(value is not None for value in given.values()) > 1:
        raise exception.InvalidInput(
            reason=f"May specify only one of {', '.join(sorted(given))}")
    # NOTE(not-served): a blank volume in its place would lose the user's data silently.
    if request.image_ref is not None:
        raise exception.InvalidInput(
            reason='Creating a volume from an image is not supported: no image service '
                   '(Glance) is configured.')


def _backend_of(source) -> str | None:
    """The backend (no pool) a clone or a volume from a snapshot must be created on."""
    pool = db_pools.pool_of(source) if source is not None else None
    return pool.partition('#')[0] if pool else None


def _zone(conf, db, wanted, source, source_kind: str, session) -> str:
    """The availability zone the volume goes to (Cinder's _extract_availability_zone)."""
    fallback = conf.default_availability_zone or conf.storage_availability_zone
    if wanted is None and source is not None and conf.cloned_volume_same_az:
        wanted = source.availability_zone
    zone = wanted or fallback
    if zone not in zones.known(conf, db, zone, session=session):
        if not conf.allow_availability_zone_fallback:
            raise exception.InvalidAvailabilityZone(az=zone)
        LOG.warning('Availability zone %s is unknown; using %s', zone, fallback)
        zone = fallback
    if source is not None and conf.cloned_volume_same_az and source.availability_zone != zone:
        raise exception.InvalidInput(
            reason=f'Volume must be in the same availability zone as the {source_kind}')
    return zone


_INCOMPATIBLE = {'volume': 'either match source volume, or omit type argument',
                 'snapshot': 'recommend omitting the type argument'}


def _check_same_encryption(db, session, vtype, encryption, source, kind: str) -> None:
    """Cinder's _retype_is_possible, its encryption part: a volume made from another of a
    different type needs a type encrypted the same way (or both unencrypted).

    :raises InvalidInput:
    """
    if source is None or source.volume_type_id == vtype.id:
        return
    theirs = db_encryption.get(db, type_id=source.volume_type_id, session=session)
    if (theirs and theirs.specs()) != (encryption and encryption.specs()):
        raise exception.InvalidInput(
            reason=f'Invalid volume_type provided: {vtype.id} (requested type is not '
                   f'compatible; {_INCOMPATIBLE[kind]}).')
def check_group(group) -> None:
    """A volume joins only an `available` group (placed: its host is known).

    :raises InvalidGroup:
    """
    if group.status != GroupStatus.AVAILABLE:
        raise exception.InvalidGroup(
            reason=f"Originating group status must be one of '{GroupStatus.AVAILABLE}' values")


def _group(db, ctx, request: CreateRequest, vtype, session):
    """The group the volume is created into (Cinder's checks), or None.

    :raises GroupNotFound, InvalidInput, InvalidGroup:
    """
    if request.group_id is None:
        return None
    group = db_groups.get(db, group_id=request.group_id,
                          project_id=None if ctx.is_admin else ctx.project_id, session=session)
    if not request.volume_type:
        raise exception.InvalidInput(
            reason='volume_type must be provided when creating a volume in a group.')
    allowed = db_groups.volume_type_ids(db, group_ids=[group.id], session=session)[group.id]
    if vtype.id not in allowed:
        raise exception.InvalidInput(
            reason=f'Invalid volume_type provided: {vtype.name} (requested type must be '
                   'supported by this group).')
    check_group(group)
    return group


def _read_spec(conf, db, ctx, request: CreateRequest, s) -> dict:
    """The volume's spec: the request validated against the data it depends on, read in *s*
    (the one transaction of CreateAtOnce), the type row held `FOR SHARE` from its lookup on
    and its encryption read after that (what _inserter's hold would otherwise do)."""
    source = snapshot = None
    if request.snapshot_id:
        snapshot = db_snapshots.get(db, snapshot_id=request.snapshot_id,
                                    project_id=None if ctx.is_admin else ctx.project_id,
                                    session=s)
        if snapshot.status != SnapshotStatus.AVAILABLE:
            raise exception.InvalidSnapshot(
                reason="Originating snapshot status must be one of 'available' values")
        # NOTE(snapshot): the new volume lands on the snapshot's backend, in its zone.
        source = db_volumes.get_any(db, volume_id=snapshot.volume_id, session=s)
    elif request.source_volid:
        source = db_volumes.get(db, volume_id=request.source_volid,
                                project_id=None if ctx.is_admin else ctx.project_id,
                                session=s)
        if source.status not in SOURCE_STATUSES:
            raise exception.InvalidVolume(
                reason="Originating source volume status must be one of "
                       f"'{', '.join(SOURCE_STATUSES)}' values")
    backup = None
    if request.backup_id:
        backup = db_backups.get(db, backup_id=request.backup_id,
                                project_id=None if ctx.is_admin else ctx.project_id)
        if backup.status != BackupStatus.AVAILABLE:
            raise exception.InvalidBackup(
                reason="Originating backup status must be one of 'available' values")
    size = _size(request.size, source if snapshot is None else None, snapshot, backup)
    held = {'session': s, 'for_share': True}
    if request.volume_type:
        vtype = db_types.get_by_name_or_id(db, ctx_project_id=ctx.project_id,
                                           is_admin=ctx.is_admin,
                                           name_or_id=request.volume_type, **held)
    elif snapshot is not None:
        vtype = db_types.get(db, type_id=snapshot.volume_type_id, **held)
    elif source is not None:
        vtype = db_types.get(db, type_id=source.volume_type_id, **held)
    else:
        vtype = db_types.get_default_for_project(
            db, project_id=ctx.project_id, conf_default_name=conf.default_volume_type, **held)
    key_source = snapshot if snapshot is not None else source
    encryption = db_encryption.get(db, type_id=vtype.id, **held)
    # NOTE(session): the quota limits are read here too; CheckQuota checks them.
    plan = quota.plan_volume(
        db, conf=conf, project_id=ctx.project_id, session=s, volume_type=vtype,
        deltas=quota.volume_deltas(size=size, volume_type_name=vtype.name))
    _check_same_encryption(db, s, vtype, encryption, key_source,
                           'snapshot' if snapshot is not None else 'volume')
    group = _group(db, ctx, request, vtype, s)
    backend = _backend_of(group) if group is not None else _backend_of(source)
    return {'size': size, 'volume_type': vtype, 'encryption': encryption,
            'source_key_id': key_source.encryption_key_id if key_source else None,
            'availability_zone': _zone(conf, db, request.availability_zone, source,
                                       'snapshot' if snapshot else 'source volume', s),
            'source_volid': request.source_volid, 'snapshot_id': request.snapshot_id,
            'backup_id': request.backup_id, 'resource_backend': backend,
            'group_id': group.id if group is not None else None, 'quota_plan': plan}


def _authorize_type(ctx, enforcer, spec) -> None:
    if spec['volume_type'].extra_specs.get('multiattach') == '<is> True':
        enforcer.authorize(ctx, policy.MULTIATTACH_POLICY)


class AuthorizeType(task.Task):
    """`volume:multiattach` for a multiattach type, once the type is known (as Cinder)."""

    def execute(self, ctx, enforcer, spec):
        _authorize_type(ctx, enforcer, spec)


class MakeEncryptionKey(task.Task):
    """The key of a volume of an encrypted type (Cinder's _get_encryption_key_id): a clone of
    its snapshot's or source volume's key, else a new one; provides the type's encryption
    (None: not encrypted) and the key id.

    :raises Invalid: "Key manager error" when the key manager fails (none configured
        included), as Cinder's create_encryption_key; InvalidVolumeType: a type without a
        cipher; InvalidVolume: a multiattach type.
    """

    default_provides = ('encryption', 'encryption_key_id')

    def execute(self, conf, db, ctx, spec):
        vtype, encryption = spec['volume_type'], spec['encryption']
        if encryption is None:
            return None, None
        keys = key_manager.from_conf(conf)
        key_id = self._make(keys, ctx, encryption, spec['source_key_id'])
        if vtype.extra_specs.get('multiattach') == '<is> True':
            self._forget(keys, ctx, key_id)
            raise exception.InvalidVolume(
                reason='Multiattach cannot be used with encrypted volumes.')
        return encryption, key_id

    @staticmethod
    def _make(keys, ctx, encryption, source_key_id) -> str:
        if source_key_id is None and not encryption.cipher:
            raise exception.InvalidVolumeType('Invalid encryption spec')
        try:
            if source_key_id is not None:
                return keys.clone(ctx, source_key_id)
            return keys.create_key(ctx, algorithm=encryption.cipher.split('-')[0],
                                   length=encryption.key_size)
        except key_manager.KeyManagerError:
            # NOTE(terse): Cinder's answer says no more, so that nothing sensitive leaks.
            LOG.exception('Key manager error')
            raise exception.Invalid('Key manager error') from None

    @staticmethod
    def _forget(keys, ctx, key_id) -> None:
        try:
            keys.delete(ctx, key_id)
        except key_manager.KeyManagerError:
            LOG.exception('Could not delete key %s of a refused volume create', key_id)

    def revert(self, conf, ctx, result, **kwargs):
        if isinstance(result, tf_failure.Failure) or result[1] is None:
            return
        self._forget(key_manager.from_conf(conf), ctx, result[1])


class CheckQuota(task.Task):
    """per_volume_gigabytes (where Cinder checks it, after the key is made); provides the
    plan CreateEntry consumes volumes/gigabytes (and per-type) by."""

    default_provides = 'quota_plan'

    def execute(self, spec):
        spec['quota_plan'].check_size(spec['size'])
        return spec['quota_plan']


def _inserter(db, ctx, request: CreateRequest, spec, encryption, encryption_key_id, *,
              held: bool = False):
    """The write of the row `creating` (no host) and its workers row, in a session; *held*
    when that session read the spec, its type row held since and its encryption read
    after."""
    values = {
        'size': spec['size'], 'user_id': ctx.user_id, 'project_id': ctx.project_id,
        'availability_zone': spec['availability_zone'], 'status': Status.CREATING,
        'attach_status': AttachStatus.DETACHED, 'display_name': request.name,
        'display_description': request.description,
        'volume_type_id': spec['volume_type'].id, 'source_volid': spec['source_volid'],
        'snapshot_id': spec['snapshot_id'],
        'replication_status': 'disabled', 'host': None, 'group_id': spec['group_id'],
        'multiattach': spec['volume_type'].extra_specs.get('multiattach') == '<is> True',
        'encryption_key_id': encryption_key_id,
    }

    def insert(session):
        if spec['group_id'] is not None:
            # NOTE(race): under the group's row lock, which a group delete takes too:
            # either the delete sees this volume, or this insert sees `deleting`.
            locked = db_groups.lock(session, group_id=spec['group_id'])
            if locked is None:
                raise exception.GroupNotFound(group_id=spec['group_id'])
            check_group(locked)
        # NOTE(encryption): the type row is held shared while the volume goes in, so a
        # change of the type's encryption waits for it and then sees the volume.
        if not held:
            db_encryption.hold_for_volume(db, type_id=spec['volume_type'].id,
                                          expected=encryption, session=session)
        volume = db_volumes.create(db, values=values, metadata=request.metadata,
                                   session=session)
        # NOTE(lost_cast): from here on some service settles the create, even when
        # this cast or the scheduler's is lost (volume/recovery.py sweep_lost).
        hold = db_workers.begin(db, resource_type=db_volumes.MACHINE.name,
                                resource_id=volume.id, status=Status.CREATING,
                                service_id=None, session=session)
        return volume, hold
    return insert


class CreateEntry(task.Task):
    """Insert the row `creating` with no host, its quota reserved and committed and its
    workers row written in the same transaction (Cinder reserves, inserts, then commits;
    its create_worker)."""

    default_provides = ('volume', 'hold')

    def execute(self, conf, db, ctx, request: CreateRequest, spec, quota_plan, encryption,
                encryption_key_id):
        insert = _inserter(db, ctx, request, spec, encryption, encryption_key_id)
        return quota.consume(db, ctx, conf=conf, plan=quota_plan, then=insert)


class NotAtOnce(Exception):
    """The request needs FLOW (its type is encrypted, or its quota the long way); *spec*
    is what CreateAtOnce read before it rolled its transaction back."""

    def __init__(self, spec: dict):
        super().__init__()
        self.spec = spec


class CreateAtOnce(task.Task):
    """Read the volume's spec, then for a type without encryption AuthorizeType's,
    CheckQuota's and CreateEntry's work in the same transaction, its quota consumed by one
    UPDATE (quota.consume_at_once); else NotAtOnce, with nothing written.

    NOTE(perf): the common create is one transaction, not a read transaction and then a
    write transaction: a BEGIN, a COMMIT and a session less. A key is never made inside a
    transaction, so an encrypted type goes on in FLOW with the spec read here, as does a
    quota the single UPDATE did not take (a first use, a recount, over quota).
    """

    default_provides = ('spec', 'quota_plan', 'volume', 'hold')

    def execute(self, conf, db, ctx, enforcer, request: CreateRequest):
        _exclusive_source(request)

        def work(s):
            spec = _read_spec(conf, db, ctx, request, s)
            if spec['encryption'] is not None:
                raise NotAtOnce(spec)
            _authorize_type(ctx, enforcer, spec)
            plan = spec['quota_plan']
            plan.check_size(spec['size'])
            volume, hold = _inserter(db, ctx, request, spec, None, None, held=True)(s)
            if not quota.consume_at_once(conf, plan, session=s):
                raise NotAtOnce(spec)
            return spec, plan, volume, hold
        return db_reservations.retried(db, work)


def request_spec(volume, spec, metadata) -> dict:
    """The JSON-safe request_spec the scheduler filters on."""
    vtype = spec['volume_type']
    properties = {
        'size': volume.size, 'availability_zone': volume.availability_zone,
        'project_id': volume.project_id, 'user_id': volume.user_id,
        'volume_type_id': vtype.id, 'display_name': volume.display_name,
        'status': volume.status, 'source_volid': volume.source_volid,
        'metadata': dict(metadata or {}), 'multiattach': volume.multiattach,
    }
    return {
        'volume_id': volume.id, 'volume_properties': properties,
        'resource_properties': properties, 'size': volume.size,
        'availability_zone': volume.availability_zone, 'source_volid': volume.source_volid,
        'snapshot_id': volume.snapshot_id, 'image_id': None, 'backup_id': spec['backup_id'],
        'resource_backend': spec['resource_backend'], 'group_id': spec['group_id'],
        'volume_type': {'id': vtype.id, 'name': vtype.name,
                        'extra_specs': dict(vtype.extra_specs)},
    }


class CastToScheduler(task.Task):
    """SchedulerAPI.create_volume; a cast that cannot be sent removes the row, gives the
    quota back and answers 503 (api/casting.py)."""

    def execute(self, db, scheduler, ctx, request: CreateRequest, spec, quota_plan, volume,
                hold):
        hints = request.scheduler_hints or {}

        def undo():
            # NOTE(perf): built only when the cast fails (its SQL clauses cost ~190 calls).
            outcome = db_settle.Outcome(
                action='create', destroy=True, where=tuple(db_volumes.unplaced(volume.id)),
                release_usage={resource: -amount
                               for resource, amount in quota_plan.deltas.items()})
            return casting.undone(db_settle.settle(
                db, db_volumes.MACHINE, row=volume, hold=hold, outcome=outcome))

        casting.send(
            lambda: scheduler.create_volume(
                ctx, volume_id=volume.id,
                request_spec=request_spec(volume, spec, request.metadata),
                filter_properties={'scheduler_hints': hints} if hints else {}),
            undo=undo, resource='Volume', resource_id=volume.id,
            what='create_volume to the scheduler')


def run(*, conf, db, scheduler, enforcer, ctx, request: CreateRequest):
    """Run the flow; returns the inserted volume row and its type.

    :raises Invalid*, VolumeTypeNotFound, VolumeNotFound, OverQuota, PolicyNotAuthorized:
        as Cinder's create (`volume:multiattach` for a multiattach type; "Key manager error"
        for an encrypted type without a working key manager).
    """
    store = {'conf': conf, 'db': db, 'scheduler': scheduler, 'enforcer': enforcer, 'ctx': ctx,
             'request': request}
    try:
        done = AT_ONCE.run(store)
    except NotAtOnce as not_at_once:
        done = FLOW.run(dict(store, spec=not_at_once.spec))
    return done['volume'], done['spec']['volume_type']


AT_ONCE = flow.LinearFlow('volume_create_api_at_once', CreateAtOnce(), CastToScheduler())
FLOW = flow.LinearFlow('volume_create_api',
                       AuthorizeType(), MakeEncryptionKey(), CheckQuota(), CreateEntry(),
                       CastToScheduler())
