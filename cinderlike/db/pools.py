"""pools rows: the limits each backend last reported and the capacity claimed by placements.

Schedulers claim with one conditional UPDATE, so no number of them can promise more than a
pool's `capacity_limit_gb`; volume services write the limits, never the claimed amount.
"""

import dataclasses
import datetime
import functools

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike.db import conditional, dialects
from cinderlike.db import engine as db_engine
from cinderlike.db import replication as db_replication
from cinderlike.db.models import Pool, Volume, utcnow
from cinderlike.states import volumes as states

LOG = logging.getLogger(__name__)

# Columns a capability report sets; `allocated_capacity_gb` / `provisioned_capacity_gb`
# (the claims) are deliberately not among them.
REPORTED = ('total_capacity_gb', 'free_capacity_gb', 'reserved_percentage', 'thin_provisioning',
            'max_over_subscription_ratio', 'capacity_limit_gb')


def supersedes(*, seq: int, reporter: str, gathered_at: datetime.datetime | None,
               held_seq: int | None, held_reporter: str | None,
               held_at: datetime.datetime | None) -> bool:
    """THE ordering rule of capability reports, for the scheduler's memory and the pools rows.

    From the same reporter (a volume or backup service `host@backend`) the sequence number
    decides; the publisher makes it grow across restarts too (scheduler/rpcapi.py), so a
    clock step never reorders one service's reports. Between two reporters of one pool (the
    members of a cluster) the time of gathering decides.
    NOTE(twin): `_supersedes_sql` is the same rule as a WHERE clause; change both together.
    """
    if held_seq is None:
        return True
    if reporter == held_reporter:
        return seq > held_seq
    return gathered_at is not None and (held_at is None or gathered_at > held_at)


def _supersedes_sql(seq: int, reporter: str, gathered_at: datetime.datetime):
    return sa.or_(sa.and_(Pool.backend == reporter, Pool.report_seq < seq),
                  sa.and_(Pool.backend != reporter,
                          sa.or_(Pool.reported_at.is_(None), Pool.reported_at < gathered_at)))


def _live(name: str):
    return [Pool.name == name, Pool.deleted == sa.false()]


def _limits(report: dict) -> dict:
    return {key: report[key] for key in REPORTED if key in report}


def _insert_if_absent(s, values: dict) -> int:
    row = dict({'reserved_percentage': 0, 'thin_provisioning': False,
                'max_over_subscription_ratio': '20.0'}, **values)
    row.update(allocated_capacity_gb=0, provisioned_capacity_gb=0, race_preventer=0,
               deleted=False, created_at=utcnow())
    name = s.bind.dialect.name
    stmt = dialects.insert(name, Pool).values(row)
    if name in ('mysql', 'mariadb'):
        stmt = stmt.prefix_with('IGNORE')
    else:
        stmt = stmt.on_conflict_do_nothing()
    return s.execute(stmt).rowcount


def record_report(db, *, backend: str, cluster_name: str | None, pools: list[dict], seq: int,
                  gathered_at: datetime.datetime, session=None) -> int:
    """Write the reported limits of *backend*'s pools unless a newer report is already stored.

    Each entry of *pools* has `name` (the pool's 'host@backend#pool', or 'cluster#pool') and
    the REPORTED columns. A pool seen for the first time gets a row with nothing claimed.
    Returns how many rows took this report.
    """
    written = 0
    with db.writer(session) as s:
        for report in pools:
            values = dict(_limits(report), backend=backend, cluster_name=cluster_name,
                          report_seq=seq, reported_at=gathered_at)
            if conditional.update(s, Pool, values=values,
                                  where=[*_live(report['name']),
                                         _supersedes_sql(seq, backend, gathered_at)]):
                written += 1
                continue
            # NOTE(race): the unique (name, race_preventer) index turns the second of two
            # reports creating the same pool at once into a no-op (an equal-age duplicate).
            written += _insert_if_absent(s, dict(values, name=report['name']))
    return written


@functools.cache
def _claim_statement(capped: bool, not_frozen: sa.ColumnElement | None):
    """UPDATE pools SET claimed += :size WHERE name = :pool AND it stays within the limit
    (and within :max_gb when *capped*; and *not_frozen*, db/replication.py's clause).

    NOTE(perf): the claim is the scheduler's hot path. Each statement is built once with
    bound parameters; building an ORM UPDATE per claim through conditional.update cost 4x
    the database round trip itself (benchmarks/scheduler.py).
    """
    table = Pool.__table__
    grown = table.c.allocated_capacity_gb + sa.bindparam('size')
    where = [table.c.name == sa.bindparam('pool'), table.c.deleted == sa.false(),
             sa.or_(table.c.capacity_limit_gb.is_(None), grown <= table.c.capacity_limit_gb)]
    if capped:
        where.append(grown <= sa.bindparam('max_gb'))
    if not_frozen is not None:
        where.append(not_frozen)
    # Both assignments read only their own column, so MySQL's left-to-right SET is harmless.
    return sa.update(table).where(*where).values(
        allocated_capacity_gb=grown,
        provisioned_capacity_gb=table.c.provisioned_capacity_gb + sa.bindparam('size'),
        updated_at=sa.bindparam('now'))


def claim(db, *, pool: str, size_gb: float, max_gb: float | None = None, session=None,
          unfrozen: tuple[str | None, str | None] | None = None) -> bool:
    """Promise *size_gb* of *pool* to a volume: one conditional UPDATE; False when it is full
    (or, given the (host, cluster_name) it is for as *unfrozen*, when that backend is
    frozen: db_replication.not_frozen).

    The pool's `capacity_limit_gb` (NULL: unlimited) is the ceiling; *max_gb* lowers it for
    this claim (a thick volume on a thin pool gets the thick ceiling, as CapacityFilter).
    """
    params = {'pool': pool, 'size': size_gb, 'now': utcnow()}
    clause = None
    if unfrozen is not None:
        _, clause, frozen_params = db_replication.not_frozen(unfrozen)
        params.update(frozen_params)
    if max_gb is not None:
        params['max_gb'] = max_gb
    stmt = _claim_statement(max_gb is not None, clause)
    with db.writer(session) as s:
        count = conditional.run(s, stmt, params)
    if count:
        LOG.debug('Claimed %(size)s GB on pool %(pool)s', {'size': size_gb, 'pool': pool})
    return bool(count)


def count_existing(db, *, pool: str | None, size_gb: float, session=None) -> bool:
    """Add a managed volume's *size_gb* to its pool's claim whatever the limit (the data
    is on the backend already); False when the pool has no row (never reported)."""
    table = Pool.__table__
    with db.writer(session) as s:
        count = s.execute(sa.update(table).where(
            table.c.name == pool, table.c.deleted == sa.false()).values(
            allocated_capacity_gb=table.c.allocated_capacity_gb + size_gb,
            provisioned_capacity_gb=table.c.provisioned_capacity_gb + size_gb,
            updated_at=utcnow())).rowcount
    if count:
        LOG.debug('Counted %(size)s GB of a managed volume on pool %(pool)s',
                  {'size': size_gb, 'pool': pool})
    return bool(count)


_POOLS = Pool.__table__
_RELEASE = sa.update(_POOLS).where(
    _POOLS.c.name == sa.bindparam('pool_name'), _POOLS.c.deleted == sa.false()).values(
    allocated_capacity_gb=_POOLS.c.allocated_capacity_gb - sa.bindparam('gb', type_=sa.Double),
    provisioned_capacity_gb=(_POOLS.c.provisioned_capacity_gb
                             - sa.bindparam('gb', type_=sa.Double)),
    updated_at=sa.bindparam('at'))


def release(db, *, pool: str | None, size_gb: float, session=None) -> bool:
    """Give back a claim (volume deleted, rescheduled away, failed before allocation).

    *pool* is the volume's 'host@backend#pool' (or its cluster's); None or an unknown pool
    (a volume never placed) releases nothing. False then.
    """
    if not pool or not size_gb:
        return False
    with db.writer(session) as s:
        count = db_engine.execute(s, _RELEASE, {'pool_name': pool, 'gb': size_gb,
                                                'at': utcnow()}).rowcount
    if count:
        LOG.debug('Released %(size)s GB on pool %(pool)s', {'size': size_gb, 'pool': pool})
    return bool(count)


def pool_of(volume) -> str | None:
    """The pools row a volume is placed on: its cluster's, else its host's ('…#pool')."""
    return volume.cluster_name or volume.host


def pool_of_sql():
    """`pool_of` in SQL, for queries over volumes."""
    return sa.func.coalesce(Volume.cluster_name, Volume.host)


def holds_claim(volume) -> bool:
    """Whether *volume* holds a capacity claim on `pool_of(volume)`.

    A placed volume holds its claim while it is being created and once its backend
    launched it (launched_at); a create that failed gave the claim back, so an `error`
    volume that never launched holds none.
    """
    return pool_of(volume) is not None and (
        volume.launched_at is not None or volume.status == states.Status.CREATING)


def holds_claim_sql():
    """`holds_claim` in SQL."""
    return sa.and_(pool_of_sql().is_not(None),
                   sa.or_(Volume.launched_at.is_not(None),
                          Volume.status == states.Status.CREATING))


def get_all(db, *, names: list[str] | None = None, session=None) -> list[Pool]:
    """Live pools rows (those named in *names* when given), by name."""
    where = [Pool.deleted == sa.false()]
    if names is not None:
        where.append(Pool.name.in_(names))
    with db.reader(session) as s:
        return list(s.scalars(sa.select(Pool).where(*where).order_by(Pool.name)))


def claims(db, *, session=None) -> dict[str, tuple[float, float]]:
    """{pool name: (allocated, provisioned)} of every live pool: one narrow query."""
    with db.reader(session) as s:
        rows = s.execute(sa.select(Pool.name, Pool.allocated_capacity_gb,
                                   Pool.provisioned_capacity_gb)
                         .where(Pool.deleted == sa.false()))
        return {name: (allocated, provisioned) for name, allocated, provisioned in rows}


@dataclasses.dataclass(frozen=True)
class Drift:
    """A pool whose claim differs from the sizes of the live volumes placed on it."""

    pool: str
    claimed_gb: float
    volumes_gb: float

    @property
    def drift_gb(self) -> float:
        return self.claimed_gb - self.volumes_gb


def _volume_sums(s) -> dict[str, float]:
    rows = s.execute(sa.select(pool_of_sql(), sa.func.sum(Volume.size))
                     .where(Volume.deleted == sa.false(), holds_claim_sql())
                     .group_by(pool_of_sql()))
    return {name: float(total or 0) for name, total in rows}


def drift(db, *, session=None) -> list[Drift]:
    """Every pool whose claim is not the sum of its live volumes' sizes, by name."""
    with db.reader(session) as s:
        sums = _volume_sums(s)
        pools = s.execute(sa.select(Pool.name, Pool.allocated_capacity_gb)
                          .where(Pool.deleted == sa.false()).order_by(Pool.name)).all()
    return [Drift(name, float(claimed), sums.get(name, 0.0)) for name, claimed in pools
            if abs(float(claimed) - sums.get(name, 0.0)) > 1e-9]


def fix_drift(db) -> list[Drift]:
    """Set each drifting pool's claim to the sum of its live volumes; what was repaired.

    Runs in one transaction that locks the pools rows, so claims made meanwhile wait and
    are then counted on top of the repaired value (a claim and its volume's host are
    written in one transaction, so a committed claim always has its volume).
    """
    with db.writer() as s:
        s.execute(sa.select(Pool.id).where(Pool.deleted == sa.false()).with_for_update())
        # NOTE(extend): an extend claims its difference before the volume grows, so a pool
        # with one in flight shows drift that is not an error; it is left alone.
        extending = set(s.scalars(sa.select(pool_of_sql()).where(
            Volume.deleted == sa.false(), Volume.status == states.Status.EXTENDING)))
        found = [item for item in drift(db, session=s) if item.pool not in extending]
        for item in found:
            conditional.update(s, Pool, where=_live(item.pool),
                               values={'allocated_capacity_gb': item.volumes_gb,
                                       'provisioned_capacity_gb': item.volumes_gb})
            LOG.warning('Pool %(pool)s claimed %(claimed)s GB for %(volumes)s GB of volumes; '
                        'repaired', {'pool': item.pool, 'claimed': item.claimed_gb,
                                     'volumes': item.volumes_gb})
    return found
