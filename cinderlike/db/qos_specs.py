"""quality_of_service_specs rows (Cinder's adjacency list: a `QoS_Specs_Name` root per QoS
specs, children holding `consumer` and the keys) and their types; written by cinderlike-api,
read by the volume service through `get_for_type`. Association changes hold the root row
FOR SHARE and delete holds it FOR UPDATE, so no type is left pointing at deleted specs.
"""

import dataclasses
import datetime
import uuid

import sqlalchemy as sa
from oslo_log import log as logging
from sqlalchemy import orm

from cinderlike import exception
from cinderlike.db import conditional, listing, serializable
from cinderlike.db import engine as db_engine
from cinderlike.db.models import QualityOfServiceSpecs as QoS
from cinderlike.db.models import Volume, VolumeType, utcnow

LOG = logging.getLogger(__name__)

ROOT_KEY = 'QoS_Specs_Name'
CONSUMER_KEY = 'consumer'
# Cinder's QoSConsumerValues.ALL, in its order; back-end is the default.
CONSUMERS = ('back-end', 'front-end', 'both')
DEFAULT_CONSUMER = 'back-end'
# Columns a listing may filter on (Cinder filters the root rows on any model column).
_FILTER_COLUMNS = {'id': QoS.id, 'key': QoS.key, 'value': QoS.value, 'specs_id': QoS.specs_id}


@dataclasses.dataclass(frozen=True)
class QoSSpecsRecord:
    """One live QoS specs, detached from any session.

    `updated_at` is the latest change of a live spec (None before any), as Cinder reports it.
    """

    id: str
    name: str
    consumer: str
    specs: dict
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None

    def as_driver_specs(self) -> dict:
        return {'id': self.id, 'name': self.name, 'consumer': self.consumer,
                'specs': dict(self.specs)}


@dataclasses.dataclass(frozen=True)
class Association:
    """A volume type that uses the QoS specs."""

    id: str
    name: str | None


def _live_root():
    return [QoS.key == ROOT_KEY, QoS.specs_id.is_(None), QoS.deleted == sa.false()]


def _root(session, specs_id, *, lock: str | None = None) -> QoS | None:
    """The live root row of *specs_id*; *lock* 'share' or 'update' holds it to the end."""
    stmt = sa.select(QoS).where(QoS.id == specs_id, *_live_root())
    if lock:
        stmt = stmt.with_for_update(read=lock == 'share')
    return session.scalars(stmt).first()


def _children(session, root_ids) -> dict[str, list]:
    rows = session.execute(
        sa.select(QoS.id, QoS.specs_id, QoS.key, QoS.value, QoS.updated_at)
        .where(QoS.specs_id.in_(root_ids), QoS.deleted == sa.false())
        .order_by(QoS.created_at, QoS.key))
    children: dict[str, list] = {root_id: [] for root_id in root_ids}
    for row in rows:
        children[row.specs_id].append(row)
    return children


def _records(session, roots) -> list[QoSSpecsRecord]:
    children = _children(session, [root.id for root in roots])
    records = []
    for root in roots:
        specs = {row.key: row.value for row in children[root.id]}
        stamps = [row.updated_at for row in children[root.id] if row.updated_at]
        records.append(QoSSpecsRecord(
            id=root.id, name=root.value, consumer=specs.pop(CONSUMER_KEY, DEFAULT_CONSUMER),
            specs=specs, created_at=root.created_at, updated_at=max(stamps, default=None)))
    return records


def get(db, *, specs_id, session=None) -> QoSSpecsRecord:
    """:raises QoSSpecsNotFound:"""
    with db.reader(session) as s:
        root = _root(s, specs_id)
        if root is None:
            raise exception.QoSSpecsNotFound(specs_id=specs_id)
        return _records(s, [root])[0]


def get_all(db, *, filters=None, marker=None, limit=None, offset=None,
            sort=None) -> list[QoSSpecsRecord]:
    """Live QoS specs for a listing, in *sort* order (default newest first), one page.

    NOTE(filters): Cinder filters the root rows on model columns, so `name` and `consumer`
    (no columns) match nothing and `value=<name>` finds a name; the timestamp and `deleted`
    columns, which Cinder fails to compare with a string, match nothing here either.

    :raises QoSSpecsNotFound: *marker* is no live QoS specs (Cinder's 404); InvalidInput:
        a sort key that is no column.
    """
    where = list(_live_root())
    for key, value in (filters or {}).items():
        if key not in _FILTER_COLUMNS:
            return []
        where.append(_FILTER_COLUMNS[key] == value)
    pairs = listing.sort_params(QoS, sort)
    stmt = sa.select(QoS).where(*where)
    with db.reader() as s:
        if marker is not None:
            marker_row = _root(s, marker)
            if marker_row is None:
                raise exception.QoSSpecsNotFound(specs_id=marker)
            stmt = stmt.where(listing.after_marker(pairs, marker_row))
        stmt = listing.order_by(stmt, pairs).offset(offset).limit(limit)
        return _records(s, list(s.scalars(stmt)))


def _child(specs_id, key, value) -> QoS:
    return QoS(id=str(uuid.uuid4()), specs_id=specs_id, key=key, value=value)


def create(db, *, name, consumer=DEFAULT_CONSUMER, specs=None) -> QoSSpecsRecord:
    """Insert the root row, its consumer and its specs.

    :raises QoSSpecsExists: live QoS specs have this name (of concurrent creates of one
        name exactly one wins).
    """
    specs_id = str(uuid.uuid4())

    def work(session):
        taken = session.scalar(sa.select(QoS.id).where(QoS.value == name, *_live_root())
                               .limit(1))
        if taken is not None:
            raise exception.QoSSpecsExists(specs_id=name)
        session.add(QoS(id=specs_id, key=ROOT_KEY, value=name))
        session.flush()
        session.add_all([_child(specs_id, CONSUMER_KEY, consumer)] +
                        [_child(specs_id, key, value) for key, value in (specs or {}).items()])
        session.flush()
        return get(db, specs_id=specs_id, session=session)

    record = serializable.run(db, work)
    LOG.info('QoS specs %s (%s) created', record.id, name)
    return record


def _live_children(session, specs_id) -> dict:
    rows = session.scalars(sa.select(QoS).where(QoS.specs_id == specs_id,
                                                QoS.deleted == sa.false()))
    return {row.key: row for row in rows}


def update(db, *, specs_id, specs: dict) -> QoSSpecsRecord:
    """Create or overwrite the given keys (`consumer` among them); unchanged ones stay as
    they are (their updated_at too), as Cinder saves only what changed.

    NOTE(null): Cinder compares each value with the current one, a missing key counting as
    None, so a new key set to null is not stored at all; an existing one becomes null.

    :raises QoSSpecsNotFound:
    """
    with db.writer() as session:
        if _root(session, specs_id, lock='update') is None:
            raise exception.QoSSpecsNotFound(specs_id=specs_id)
        current = _live_children(session, specs_id)
        now = utcnow()
        for key, value in specs.items():
            row = current.get(key)
            if row is None:
                if value is not None:
                    session.add(_child(specs_id, key, value))
            elif row.value != value:
                conditional.update(session, QoS, values={'value': value, 'updated_at': now},
                                   where=[QoS.id == row.id])
        session.flush()
        return get(db, specs_id=specs_id, session=session)


def delete_keys(db, *, specs_id, keys) -> QoSSpecsRecord:
    """Delete the spec *keys* in order, up to the first one the specs do not have.

    NOTE(partial): Cinder deletes the keys before a missing one and then fails, keeping
    what it deleted ("mimic that", cinder/volume/qos_specs.py); so does this.

    :raises QoSSpecsNotFound:, QoSSpecsKeyNotFound: (after deleting the keys before it)
    """
    missing = None
    with db.writer() as session:
        if _root(session, specs_id, lock='update') is None:
            raise exception.QoSSpecsNotFound(specs_id=specs_id)
        current = _live_children(session, specs_id)
        current.pop(CONSUMER_KEY, None)
        doomed = []
        for key in keys:
            if key not in current:
                missing = key
                break
            doomed.append(current[key].id)
        if doomed:
            conditional.update(session, QoS,
                               values={'deleted': True, 'deleted_at': utcnow(),
                                       'updated_at': QoS.updated_at},
                               where=[QoS.id.in_(doomed)])
        record = get(db, specs_id=specs_id, session=session)
    if missing is not None:
        raise exception.QoSSpecsKeyNotFound(specs_id=specs_id, specs_key=missing)
    return record


def _types_using(session, specs_id, *, lock: bool = False):
    stmt = (sa.select(VolumeType.id, VolumeType.name)
            .where(VolumeType.qos_specs_id == specs_id, VolumeType.deleted == sa.false())
            .order_by(VolumeType.created_at, VolumeType.id))
    if lock:
        stmt = stmt.with_for_update()
    return [Association(id=row.id, name=row.name) for row in session.execute(stmt)]


def _clear_associations(session, specs_id) -> int:
    """Every type row (deleted ones too, as Cinder) stops pointing at *specs_id*."""
    return conditional.update(session, VolumeType,
                              values={'qos_specs_id': None, 'updated_at': utcnow()},
                              where=[VolumeType.qos_specs_id == specs_id])


def destroy(db, *, specs_id, force: bool = False) -> QoSSpecsRecord:
    """Soft-delete the specs; with *force* first disassociate every type, all in one
    transaction. Returns what was deleted.

    :raises QoSSpecsNotFound:, QoSSpecsInUse: a live type uses them and *force* is False
        (nothing is changed).
    """
    with db.writer() as session:
        root = _root(session, specs_id, lock='update')
        if root is None:
            raise exception.QoSSpecsNotFound(specs_id=specs_id)
        record = _records(session, [root])[0]
        if _types_using(session, specs_id, lock=True):
            if not force:
                raise exception.QoSSpecsInUse(specs_id=specs_id)
            _clear_associations(session, specs_id)
        conditional.update(session, QoS,
                           values={'deleted': True, 'deleted_at': utcnow(),
                                   'updated_at': QoS.updated_at},
                           where=[sa.or_(QoS.id == specs_id, QoS.specs_id == specs_id),
                                  QoS.deleted == sa.false()])
    LOG.info('QoS specs %s deleted (force=%s)', specs_id, force)
    return record


def associations(db, *, specs_id) -> list[Association]:
    """The live types using the specs.

    :raises QoSSpecsNotFound:
    """
    with db.reader() as session:
        if _root(session, specs_id) is None:
            raise exception.QoSSpecsNotFound(specs_id=specs_id)
        return _types_using(session, specs_id)


# NOTE(perf): built once, bound at execution (every create reads it).
def _type_qos(type_id) -> sa.ScalarSelect:
    """SQL scalar: the QoS specs id the live type *type_id* points at, '' when it points at
    none, NULL when no live type has that id."""
    return sa.select(sa.func.coalesce(VolumeType.qos_specs_id, '')).where(
        VolumeType.id == type_id, VolumeType.deleted == sa.false()).scalar_subquery()


_TYPE_QOS = sa.select(_type_qos(sa.bindparam('type_id')))
# A volume read with this option (Machine.get's *options*) holds its type's `_type_qos` in
# `live_type_qos`. NOTE(perf): the volume service's create reads it with its take, in the
# take's SELECT, not in a statement of its own.
WITH_LIVE_TYPE_QOS = orm.with_expression(Volume.live_type_qos,
                                         _type_qos(Volume.volume_type_id))


def _live_type_qos(session, type_id) -> tuple[bool, str | None]:
    """(the live type exists, the live QoS specs it points at or None)."""
    return _resolved(session, db_engine.execute(session, _TYPE_QOS, {'type_id': type_id})
                     .scalar())


def _resolved(session, type_qos: str | None) -> tuple[bool, str | None]:
    """_live_type_qos from a type's `_type_qos`."""
    if type_qos is None:
        return False, None
    if not type_qos or _root(session, type_qos) is None:
        return True, None
    return True, type_qos


def associate(db, *, specs_id, type_id) -> None:
    """Point the type at the specs, unless it uses other live specs (Cinder's one per type).

    One conditional UPDATE: of concurrent associations of one type exactly one applies. A
    type pointing at deleted specs counts as free, as in Cinder.

    :raises QoSSpecsNotFound:, VolumeTypeNotFound:, InvalidVolumeType: the type already
        uses other QoS specs.
    """
    others_live = sa.exists().where(QoS.id == VolumeType.qos_specs_id, *_live_root())
    with db.writer() as session:
        if _root(session, specs_id, lock='share') is None:
            raise exception.QoSSpecsNotFound(specs_id=specs_id)
        if conditional.update(
                session, VolumeType, values={'qos_specs_id': specs_id, 'updated_at': utcnow()},
                where=[VolumeType.id == type_id, VolumeType.deleted == sa.false(),
                       sa.or_(VolumeType.qos_specs_id.is_(None), ~others_live)]):
            LOG.info('QoS specs %s associated with volume type %s', specs_id, type_id)
            return
        exists, current = _live_type_qos(session, type_id)
    if not exists:
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    if current != specs_id:
        raise exception.InvalidVolumeType(
            reason=f'Type {type_id} is already associated with another qos specs: {current}')


def disassociate(db, *, specs_id, type_id) -> None:
    """The type stops using the specs (nothing changes if it uses others or none).

    :raises QoSSpecsNotFound:, VolumeTypeNotFound:
    """
    with db.writer() as session:
        if _root(session, specs_id, lock='share') is None:
            raise exception.QoSSpecsNotFound(specs_id=specs_id)
        exists, _current = _live_type_qos(session, type_id)
        if not exists:
            raise exception.VolumeTypeNotFound(volume_type_id=type_id)
        conditional.update(session, VolumeType,
                           values={'qos_specs_id': None, 'updated_at': utcnow()},
                           where=[VolumeType.id == type_id, VolumeType.qos_specs_id == specs_id])


def disassociate_all(db, *, specs_id) -> None:
    """No type uses the specs any more.

    :raises QoSSpecsNotFound:
    """
    with db.writer() as session:
        if _root(session, specs_id, lock='share') is None:
            raise exception.QoSSpecsNotFound(specs_id=specs_id)
        _clear_associations(session, specs_id)


def get_for_type(db, *, type_id, session=None) -> dict:
    """The type's QoS specs as Cinder's `volume_types.get_volume_type_qos_specs` gives them to
    drivers: `{'qos_specs': {'id', 'name', 'consumer', 'specs'}}`, or `{'qos_specs': None}`.

    :raises VolumeTypeNotFound: no live type has this id.
    """
    with db.reader(session) as s:
        return _for_type(db, type_id, *_live_type_qos(s, type_id), s)


def _for_type(db, type_id, exists: bool, specs_id: str | None, session) -> dict:
    """get_for_type's answer from the type's _live_type_qos."""
    if not exists:
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    if specs_id is None:
        return {'qos_specs': None}
    return {'qos_specs': get(db, specs_id=specs_id, session=session).as_driver_specs()}


# Consumers whose specs the backend enforces (the rest go to the hypervisor at attach).
BACKEND_CONSUMERS = ('back-end', 'both')


def backend_specs(db, *, volume, session=None) -> dict | None:
    """The QoS specs a driver enforces for *volume*, read WITH_LIVE_TYPE_QOS (consumer
    back-end or both), as `get_for_type` gives them for its type; None when the type has
    none for the backend.

    :raises VolumeTypeNotFound: its type is gone.
    """
    with db.reader(session) as s:
        qos = _for_type(db, volume.volume_type_id, *_resolved(s, volume.live_type_qos),
                        s)['qos_specs']
    return qos if qos is not None and qos['consumer'] in BACKEND_CONSUMERS else None
