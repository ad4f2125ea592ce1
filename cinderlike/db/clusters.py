"""clusters rows: the Active-Active groups of volume services, with their members' summary,
and the volumes a cluster owns (cinderlike-volume on start, cinderlike-api, cinderlike-manage).
"""

import dataclasses
import datetime

import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import conditional
from cinderlike.db import services as db_services
from cinderlike.db.models import Cluster, Group, Service, Volume, utcnow
from cinderlike.db.services import host_level
from cinderlike.states import volumes as volume_states


@dataclasses.dataclass(frozen=True)
class Summary:
    """A cluster row and what its live member services say (Cinder's computed columns)."""

    cluster: Cluster
    last_heartbeat: datetime.datetime | None
    num_hosts: int
    num_down_hosts: int
    is_up: bool


def _members():
    """Live services of the cluster row being selected."""
    return sa.and_(Service.cluster_name == Cluster.name, Service.binary == Cluster.binary,
                   Service.deleted == sa.false())


def _heartbeat():
    # NOTE(heartbeat): as db/services.is_up, a service that never beat counts from its
    # registration.
    return sa.func.coalesce(Service.updated_at, Service.created_at)


def _summary_columns(expired: datetime.datetime):
    last = sa.select(sa.func.max(_heartbeat())).where(_members()).scalar_subquery()
    hosts = sa.select(sa.func.count(Service.id)).where(_members()).scalar_subquery()
    down = (sa.select(sa.func.count(Service.id))
            .where(_members(), sa.or_(_heartbeat().is_(None), _heartbeat() < expired))
            .scalar_subquery())
    return last.label('last_heartbeat'), hosts.label('num_hosts'), down.label('num_down_hosts')


def _select(down_time: int, filters: dict):
    """SELECT cluster + summary with Cinder's cluster_get_all filters.

    *filters*: name (host-level match, as Cinder's _filter_host), binary, is_up, disabled,
    num_hosts, num_down_hosts, replication_status, frozen, active_backend_id.
    """
    expired = utcnow() - datetime.timedelta(seconds=down_time)
    last, hosts, down = _summary_columns(expired)
    stmt = sa.select(Cluster, last, hosts, down).where(Cluster.deleted == sa.false())
    for key, value in filters.items():
        if key == 'name':
            stmt = stmt.where(host_level(Cluster.name, value))
        elif key == 'is_up':
            up = sa.exists().where(_members(), _heartbeat() >= expired)
            stmt = stmt.where(up if value else ~up)
        elif key == 'num_hosts':
            stmt = stmt.where(hosts == value)
        elif key == 'num_down_hosts':
            stmt = stmt.where(down == value)
        else:
            stmt = stmt.where(getattr(Cluster, key) == value)
    return stmt.order_by(Cluster.id), expired


def _summaries(rows, expired) -> list[Summary]:
    return [Summary(cluster=row[0], last_heartbeat=row[1], num_hosts=row[2] or 0,
                    num_down_hosts=row[3] or 0,
                    is_up=row[1] is not None and row[1] >= expired) for row in rows]


def get_all(db, *, down_time: int, filters: dict | None = None) -> list[Summary]:
    """Live clusters matching *filters* (see _select), oldest first."""
    stmt, expired = _select(down_time, filters or {})
    with db.reader() as session:
        return _summaries(session.execute(stmt).all(), expired)


def get(db, *, name: str, binary: str = db_services.VOLUME_BINARY, down_time: int) -> Summary:
    """The cluster *name* (host-level match) of *binary*.

    :raises ClusterNotFound: with Cinder's text, which names the filters it looked up by.
    """
    found = get_all(db, down_time=down_time, filters={'binary': binary, 'name': name})
    if not found:
        raise exception.ClusterNotFound(id=str({'binary': binary, 'name': name}))
    return found[0]


def ensure(db, *, name: str, binary: str, replication_status=None, active_backend_id=None,
           frozen=False) -> bool:
    """Create the live cluster (name, binary) unless it exists; True when this call made it.

    Members starting together race here: the unique (name, binary, race_preventer) key
    lets one INSERT through and the others' fail, which they take as "it exists".
    """
    row = Cluster(name=name, binary=binary, race_preventer=0,
                  replication_status=replication_status or 'not-capable',
                  active_backend_id=active_backend_id, frozen=bool(frozen))
    try:
        with db.writer() as session:
            session.add(row)
    except sa.exc.IntegrityError:
        return False
    return True


def set_disabled(db, *, cluster_id: int, disabled: bool, reason: str | None) -> None:
    """Enable or disable scheduling on the cluster's backend (every member at once)."""
    with db.writer() as session:
        conditional.update(session, Cluster,
                           values={'disabled': disabled, 'disabled_reason': reason},
                           where=[Cluster.id == cluster_id, Cluster.deleted == sa.false()])


def remove(db, *, name: str, binary: str, recursive: bool = False) -> int:
    """Delete the cluster (exact name); with *recursive* its member services first.

    Returns how many services went with it.
    :raises ClusterNotFound:
    :raises ClusterHasHosts: a live service still names the cluster (not recursive).
    """
    where = [Cluster.name == name, Cluster.binary == binary, Cluster.deleted == sa.false()]
    now = utcnow()
    with db.writer() as session:
        row = session.scalars(sa.select(Cluster).where(*where)).first()
        if row is None:
            raise exception.ClusterNotFound(id=str({'name': name, 'binary': binary}))
        removed = 0
        if recursive:
            removed = conditional.update(
                session, Service, values={'deleted': True, 'deleted_at': now},
                where=[Service.cluster_name == name, Service.binary == binary,
                       Service.deleted == sa.false()])
        # NOTE(race_preventer): the id frees (name, binary, 0) for a cluster made later.
        if not conditional.update(
                session, Cluster,
                values={'deleted': True, 'deleted_at': now, 'race_preventer': row.id},
                where=[Cluster.id == row.id, ~sa.exists().where(_members())]):
            raise exception.ClusterHasHosts(id=row.id)
        return removed


def _rename(db, *, model, column: str, match: str | None, new: str | None,
            partial: bool) -> int:
    """cluster_name := *new* on live *model* rows (volumes, groups) whose *column* matches
    *match* (host-level); *partial* keeps what follows the matched part (backend, pool), as
    Cinder's _include_in_cluster."""
    where = [model.deleted == sa.false()]
    value = new
    if match:
        where.append(host_level(getattr(model, column), match))
        if partial and new is not None:
            value = sa.func.replace(getattr(model, column), match, new)
    with db.writer() as session:
        return conditional.update(session, model, values={'cluster_name': value}, where=where)


def include_volumes(db, *, host: str, cluster_name: str) -> int:
    """A host joined *cluster_name*: its volumes ('host@backend#pool') get
    'cluster@backend#pool', so any member can serve them. Returns the count."""
    return _rename(db, model=Volume, column='host', match=host, new=cluster_name,
                   partial=True)


def include_groups(db, *, host: str, cluster_name: str) -> int:
    """The same for the host's generic volume groups (Cinder's
    _include_resources_in_cluster covers both)."""
    return _rename(db, model=Group, column='host', match=host, new=cluster_name,
                   partial=True)


def rename_volumes(db, *, current: str | None, new: str | None, partial: bool = True) -> int:
    """cinderlike-manage cluster rename: volumes of cluster *current* move to *new*."""
    return _rename(db, model=Volume, column='cluster_name', match=current, new=new,
                   partial=partial)


def adopt_volume(db, *, volume_id: str, host: str) -> bool:
    """A clustered member took a volume's create: its host becomes *host*, keeping the pool
    (Cinder's _set_resource_host). False when the volume is gone, no longer `creating`,
    not clustered, or already here."""
    live = [Volume.id == volume_id, Volume.deleted == sa.false(),
            Volume.status == volume_states.Status.CREATING, Volume.cluster_name.is_not(None)]
    with db.writer() as session:
        current = session.scalars(sa.select(Volume.host).where(*live)).first()
        if not current or current.partition('#')[0] == host:
            return False
        pool = current.partition('#')[2]
        new = f'{host}#{pool}' if pool else host
        return conditional.update(session, Volume, values={'host': new},
                                  where=[*live, Volume.host == current]) == 1
