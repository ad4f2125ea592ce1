"""A volume backend's management state (`frozen`, `replication_status`) on its services and
cluster rows: freeze, thaw and failover_host change it (cinderlike-api), mutating operations
check it.
"""

import sqlalchemy as sa
from oslo_log import log as logging

from cinderlike import exception
from cinderlike.db import conditional
from cinderlike.db import engine as db_engine
from cinderlike.db import services as db_services
from cinderlike.db.models import Cluster, Service, utcnow
from cinderlike.db.services import host_level

LOG = logging.getLogger(__name__)

FROZEN_MESSAGE = 'Modification operations are not allowed on frozen storage backends.'


def _frozen(model, column: str) -> sa.Exists:
    table = model.__table__
    return sa.exists().where(table.c[column] == sa.bindparam('frozen_name'),
                             table.c.deleted == sa.false(), table.c.frozen.is_(True))


# NOTE(perf): built once; every placement and every mutating request reads one of them.
# Keyed by whether the resource is clustered (see _backend_of).
_FROZEN = {True: _frozen(Cluster, 'name'), False: _frozen(Service, 'host')}
_IS_FROZEN = {clustered: sa.select(frozen) for clustered, frozen in _FROZEN.items()}
_NOT_FROZEN = {clustered: ~frozen for clustered, frozen in _FROZEN.items()}


def _backend_of(*, host: str | None, cluster_name: str | None) -> tuple[bool, str]:
    """(clustered, name) of the row Cinder's is_backend_frozen reads: the cluster row for a
    clustered resource, the services row of its backend (pool dropped) otherwise; the
    clauses take the name as `frozen_name`."""
    if cluster_name:
        return True, cluster_name.partition('#')[0]
    return False, (host or '').partition('#')[0]


def not_frozen(backend: tuple[str | None, str | None]) -> tuple[bool, sa.ColumnElement, dict]:
    """For a statement that must not touch a resource of a frozen backend, *backend* being
    the resource's (host, cluster_name): (the clause's key, for a cache of statements built
    with it; the clause, a WHERE term; its parameters).

    NOTE(perf): a clause of the statement, not a SELECT before it; a freeze committed
    between the two would otherwise slip through."""
    clustered, name = _backend_of(host=backend[0], cluster_name=backend[1])
    return clustered, _NOT_FROZEN[clustered], {'frozen_name': name}


def is_frozen(db, *, host: str | None, cluster_name: str | None, session=None) -> bool:
    """Cinder's is_backend_frozen (see _backend_of)."""
    clustered, name = _backend_of(host=host, cluster_name=cluster_name)
    with db.reader(session) as s:
        return bool(db_engine.execute(s, _IS_FROZEN[clustered],
                                      {'frozen_name': name}).scalar())


def assert_not_frozen(db, *, host: str | None, cluster_name: str | None,
                      session=None) -> None:
    """:raises InvalidInput: with Cinder's message, when the resource's backend is frozen."""
    if is_frozen(db, host=host, cluster_name=cluster_name, session=session):
        raise exception.InvalidInput(reason=FROZEN_MESSAGE)


def _targets(session, *, host, cluster_name):
    """(cluster row or None, services rows) a replication change applies to, as Cinder's
    _get_cluster_and_services_for_replication: a host of a cluster means its whole cluster.

    :raises ServiceNotFound, InvalidParameterValue:
    """
    stmt = sa.select(Service).where(Service.deleted == sa.false(),
                                    Service.binary == db_services.VOLUME_BINARY)
    if host:
        stmt = stmt.where(host_level(Service.host, host))
    if cluster_name:
        stmt = stmt.where(host_level(Service.cluster_name, cluster_name))
    services = list(session.scalars(stmt.order_by(Service.id)))
    if not services:
        raise exception.ServiceNotFound(
            f'No service found with host={host}' if host
            else f'No service found with cluster={cluster_name}')
    attribute = 'cluster_name' if cluster_name else 'host'
    if any(getattr(s, attribute) != getattr(services[0], attribute) for s in services):
        raise exception.InvalidParameterValue(err='Services from different clusters found.')
    cluster = None
    if services[0].cluster_name:
        cluster = session.scalars(sa.select(Cluster).where(
            Cluster.name == services[0].cluster_name, Cluster.binary == services[0].binary,
            Cluster.deleted == sa.false())).first()
    if host and cluster is not None:
        services = list(session.scalars(sa.select(Service).where(
            Service.deleted == sa.false(), Service.binary == cluster.binary,
            Service.cluster_name == cluster.name).order_by(Service.id)))
    return cluster, services


def _refusal(field: str, expected, where: str, check_up: bool) -> str:
    # NOTE(wording): Cinder's text, "to failover" included for freeze and thaw.
    up = 'and must be up ' if check_up else ''
    return f'{field} in {where} must be {expected} {up}to failover.'


def change(db, *, host: str | None, cluster_name: str | None, field: str, expected: list,
           value, down_time: int | None = None, previous: dict | None = None) -> list[Service]:
    """Compare-and-swap *field* from one of *expected* to *value* on the backend's cluster
    row and its services rows (Cinder's _replication_db_change); the services changed.

    With *down_time*, only services up (and a cluster with a member up) may change. A
    *previous* dict gets {(model, id): the value it left} of every row changed (restore()).

    :raises ServiceNotFound, InvalidParameterValue, InvalidInput: Cinder's messages.
    """
    check_up = down_time is not None
    plain = [e.value if hasattr(e, 'value') else e for e in expected]
    shown = str(plain[0] if len(plain) == 1 else plain)
    now = utcnow()
    with db.writer() as session:
        cluster, services = _targets(session, host=host, cluster_name=cluster_name)
        alive = {s.id for s in services
                 if not check_up or db_services.is_up(s, down_time=down_time, now=now)}
        column = getattr(Cluster, field)
        if cluster is not None and (not alive or not conditional.update(
                session, Cluster, values={field: value},
                where=[Cluster.id == cluster.id, column.in_(expected)])):
            raise exception.InvalidInput(reason=_refusal(field, shown, cluster.name, check_up))
        changed = [s for s in services if s.id in alive and conditional.update(
            session, Service, values={field: value, 'updated_at': Service.updated_at},
            where=[Service.id == s.id, getattr(Service, field).in_(expected)])]
        if len(changed) < len(services):
            refused = _refusal(field, shown, str([s.host for s in services if s not in changed]),
                               check_up)
            if not changed:
                # NOTE(undo): raising rolls the cluster row's change back with the rest.
                raise exception.InvalidInput(reason=f'No service could be changed: {refused}')
            LOG.warning('Some services could not be changed: %s', refused)
        changed_ids = [s.id for s in changed]
        if previous is not None:
            previous.update({(Service, s.id): getattr(s, field) for s in changed})
            if cluster is not None:
                previous[(Cluster, cluster.id)] = getattr(cluster, field)
    return [db_services.get(db, service_id) for service_id in changed_ids]


def restore(db, *, field: str, value, previous: dict) -> bool:
    """Undo a change() whose call or cast was not sent: the rows still at *value* get back
    what *previous* recorded, in one transaction; False when none still was."""
    with db.writer() as session:
        # NOTE(heartbeat): updated_at kept, as change() keeps it (a service's is its
        # heartbeat).
        count = sum(conditional.update(
            session, model, values={field: old, 'updated_at': model.updated_at},
            where=[model.id == row_id, getattr(model, field) == value])
            for (model, row_id), old in previous.items())
    return count > 0


def record_failover(db, *, host: str, cluster_name: str | None, values: dict) -> None:
    """Store a failover's outcome (replication_status, active_backend_id, disabled...) on
    the backend's services row, and on its cluster's row when clustered (Cinder's
    finish_failover)."""
    with db.writer() as session:
        if cluster_name:
            conditional.update(session, Cluster, values=values,
                               where=[Cluster.name == cluster_name, Cluster.deleted == sa.false(),
                                      Cluster.binary == db_services.VOLUME_BINARY])
        conditional.update(session, Service,
                           values={**values, 'updated_at': Service.updated_at},
                           where=[Service.host == host, Service.deleted == sa.false(),
                                  Service.binary == db_services.VOLUME_BINARY])
