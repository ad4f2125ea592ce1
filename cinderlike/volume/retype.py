"""cinderlike-volume: change a `retyping` volume's type on its own backend (Cinder's retype).

The scheduler found the volume's pool passes with the new type. Types that differ in nothing
need no driver; otherwise the driver retypes, or refuses (Cinder's "Retype requires
migration but is not allowed."). Either end settles the status (back to where it was), the
per-type quota reservations (committed, or rolled back) and the workers row in one step.
"""

from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import qos_specs as db_qos_specs
from cinderlike.db import settle as db_settle
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.drivers.volume import base
from cinderlike.states.volumes import Status

LOG = logging.getLogger(__name__)


def types_diff(db, *, old_type_id: str, new_type_id: str) -> tuple[dict, bool]:
    """Cinder's volume_types_diff: ({'extra_specs': {key: (old, new)}, 'qos_specs':
    {key: (old, new)}, 'encryption': {}}, whether the two types are alike)."""
    diff = {'extra_specs': {}, 'qos_specs': {}, 'encryption': {}}
    pairs = (('extra_specs', db_types.get_extra_specs(db, type_id=old_type_id),
              db_types.get_extra_specs(db, type_id=new_type_id)),
             ('qos_specs', _qos(db, old_type_id), _qos(db, new_type_id)))
    for section, old, new in pairs:
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                diff[section][key] = (old.get(key), new.get(key))
    return diff, not any(diff.values())


def _qos(db, type_id: str) -> dict:
    try:
        qos = db_qos_specs.get_for_type(db, type_id=type_id)['qos_specs']
    except exception.VolumeTypeNotFound:
        return {}
    if qos is None:
        return {}
    return dict(qos['specs'], consumer=qos['consumer'])


def failed(request: dict) -> db_settle.Outcome:
    """A retype that did not happen: back to where it was, reservations rolled back."""
    return db_settle.Outcome(action='retype', error=True,
                             rollback=tuple(request.get('reservations') or ()))


def retype(manager, ctx, *, volume_id: str, new_type_id: str, reservations: list[str]) -> bool:
    """Retype on this backend; True when the volume has the new type."""
    request = {'new_type_id': new_type_id, 'reservations': list(reservations)}
    volume, hold = manager.hold(db_volumes.MACHINE, row_id=volume_id, status=Status.RETYPING,
                                request=request)
    if hold is None:
        return False
    try:
        manager.require_driver()
        model_update = _retype_on_backend(manager, volume, new_type_id)
    except Exception as error:
        LOG.error('Volume %s: retype to type %s failed: %s', volume_id, new_type_id, error)
        outcome = failed(request)
    else:
        outcome = db_settle.Outcome(action='retype', commit=tuple(reservations),
                                    values=dict(model_update, volume_type_id=new_type_id))
    with manager.db.writer() as session:
        settled = db_settle.settle(manager.db, db_volumes.MACHINE, row=volume, hold=hold,
                                   outcome=outcome, session=session)
        if settled is db_settle.Settled.DONE and not outcome.error:
            # NOTE(cinder): as Cinder, the volume's snapshots take its new type.
            db_snapshots.set_volume_type(manager.db, volume_id=volume_id,
                                         volume_type_id=new_type_id, session=session)
    if settled is not db_settle.Settled.DONE or outcome.error:
        return False
    LOG.info('Volume %s: retyped successfully to type %s.', volume_id, new_type_id)
    manager.notifier.info(ctx, volume, 'retype', reload=True, volume_type=new_type_id)
    return True


def _retype_on_backend(manager, volume, new_type_id: str) -> dict:
    """The columns the driver's retype returned ({} for alike types).

    :raises VolumeMigrationFailed: the driver cannot retype in place.
    """
    diff, alike = types_diff(manager.db, old_type_id=volume.volume_type_id,
                             new_type_id=new_type_id)
    if alike:
        return {}
    new_type = db_types.get(manager.db, type_id=new_type_id)
    spec = {'id': new_type.id, 'name': new_type.name, 'extra_specs': dict(new_type.extra_specs)}
    try:
        answer = manager.driver.retype(base.VolumeRef.of(volume), spec, diff)
    except Exception:
        LOG.exception('Volume %s: driver error when trying to retype', volume.id)
        answer = False
    retyped, model_update = answer if isinstance(answer, tuple) else (answer, None)
    if not retyped:
        # NOTE(policy): the scheduler keeps a volume on its pool only when that pool passes
        # with the new type; a driver that still refuses would need a migration to that
        # same pool, which cinderlike does not make, whatever the migration policy.
        raise exception.VolumeMigrationFailed(
            reason='Retype requires migration but is not allowed.')
    return dict(model_update or {})
