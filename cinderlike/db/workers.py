"""workers rows: one per in-flight cleanable operation, naming the service that runs it.

The volume service takes the row when it starts driver work and removes it when the status
is settled. Taking a row bumps its `epoch`; the holder remembers the epoch, and `held()` is
the SQL predicate that makes its final status write fail once another service took over.
"""

import dataclasses

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike.db import conditional
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Worker, utcnow

LOG = logging.getLogger(__name__)

# resource_type of a volume's row (Cinder's class name).
VOLUME = 'Volume'


@dataclasses.dataclass(frozen=True)
class Claim:
    """What the holder of a workers row knows: which row, and under which epoch it took it."""

    id: int
    resource_type: str
    resource_id: str
    epoch: int


def _where(resource_type: str, resource_id: str):
    return [Worker.resource_type == resource_type, Worker.resource_id == resource_id]


def begin(db, *, resource_type: str, resource_id: str, status: str, service_id: int | None,
          session=None) -> Claim:
    """Take the resource's workers row for *service_id* (creating it), bumping its epoch.

    Pass the session of the status change so both commit together.
    """
    values = {'status': status, 'service_id': service_id, 'epoch': Worker.epoch + 1,
              'updated_at': utcnow()}
    with db.writer(session) as s:
        where = _where(resource_type, resource_id)
        if not conditional.update(s, Worker, values=values, where=where):
            try:
                with s.begin_nested():
                    s.add(Worker(resource_type=resource_type, resource_id=resource_id,
                                 status=status, service_id=service_id, epoch=1))
            except sa.exc.IntegrityError:
                # NOTE(race): another service inserted it first; take it over from them.
                conditional.update(s, Worker, values=values, where=where)
        row_id, epoch = s.execute(sa.select(Worker.id, Worker.epoch).where(
            *_where(resource_type, resource_id))).one()
    LOG.debug('%s %s: workers row taken by service %s (epoch %s)', resource_type,
              resource_id, service_id, epoch)
    return Claim(row_id, resource_type, resource_id, epoch)


def begin_volume(db, *, volume_id: str, status: str, service_id: int | None):
    """(row, Claim) of a volume still in *status*, its workers row taken in the same
    transaction as that check; (row, None) when the volume is in another status.

    :raises VolumeNotFound:
    """
    with db.writer() as s:
        volume = db_volumes.get(db, volume_id=volume_id, session=s)
        if volume.status != status:
            return volume, None
        claim = begin(db, resource_type=VOLUME, resource_id=volume_id, status=status,
                      service_id=service_id, session=s)
    return volume, claim


def held(claim: Claim):
    """SQL predicate: the row is still ours (nobody took it over since we did)."""
    return sa.exists().where(Worker.id == claim.id, Worker.epoch == claim.epoch)


def finish(db, *, claim: Claim, session=None) -> bool:
    """Remove the row if we still hold it; False when another service took it over."""
    with db.writer(session) as s:
        count = s.execute(sa.delete(Worker).where(
            Worker.id == claim.id, Worker.epoch == claim.epoch)
            .execution_options(synchronize_session=False)).rowcount
    return bool(count)


def get(db, *, resource_type: str, resource_id: str, session=None) -> Worker | None:
    with db.reader(session) as s:
        return s.scalars(sa.select(Worker).where(*_where(resource_type, resource_id))).first()
