"""cinderlike-api: os-services management actions (Cinder's volume API freeze_host,
thaw_host, failover and the services controller's set-log / get-log)."""

import contextlib

from cinderlike import exception, log_levels
from cinderlike.api import casting
from cinderlike.db import replication
from cinderlike.db import services as db_services
from cinderlike.states import replication as rep_states

API_BINARY = 'cinder-api'
# Cinder's LOG_BINARIES: the daemons set-log and get-log reach.
LOG_BINARIES = (db_services.SCHEDULER_BINARY, db_services.VOLUME_BINARY,
                db_services.BACKUP_BINARY, API_BINARY)
THAW_FAILED = 'Backend reported error during thaw_host operation.'


@contextlib.contextmanager
def _service_lookup():
    """As Cinder's _volume_api_proxy: an unknown backend is the caller's bad input."""
    try:
        yield
    except exception.ServiceNotFound as error:
        raise exception.InvalidInput(error.msg) from None


def freeze(db, rpc, ctx, *, host, cluster_name) -> None:
    """Mark the backend frozen, then let its volume service disable itself (a call).

    :raises InvalidInput, InvalidParameterValue:
    """
    previous = {}
    with _service_lookup():
        services = replication.change(db, host=host, cluster_name=cluster_name,
                                      field='frozen', expected=[False], value=True,
                                      previous=previous)
    casting.call(lambda: rpc.volume.freeze_host(ctx, host=services[0].host,
                                                cluster_name=services[0].cluster_name),
                 undo=lambda: replication.restore(db, field='frozen', value=True,
                                                  previous=previous),
                 resource='Service', resource_id=services[0].host, what='freeze_host')


def thaw(db, rpc, ctx, *, host, cluster_name) -> str | None:
    """Clear frozen; THAW_FAILED when the backend's driver refused (it stays disabled).

    :raises InvalidInput, InvalidParameterValue:
    """
    previous = {}
    with _service_lookup():
        services = replication.change(db, host=host, cluster_name=cluster_name,
                                      field='frozen', expected=[True], value=False,
                                      previous=previous)
    if not casting.call(lambda: rpc.volume.thaw_host(ctx, host=services[0].host,
                                                     cluster_name=services[0].cluster_name),
                        undo=lambda: replication.restore(db, field='frozen', value=False,
                                                         previous=previous),
                        resource='Service', resource_id=services[0].host, what='thaw_host'):
        return THAW_FAILED
    return None


def failover(conf, db, rpc, ctx, *, host, cluster_name, backend_id) -> None:
    """Move an up, replicating backend to failing-over and cast the failover to it.

    :raises InvalidInput: (Cinder's wording) when the backend does not replicate or is down.
    """
    previous = {}
    with _service_lookup():
        services = replication.change(
            db, host=host, cluster_name=cluster_name, field='replication_status',
            expected=rep_states.FAILOVER_FROM, value=rep_states.Status.FAILING_OVER,
            down_time=conf.service_down_time, previous=previous)
    casting.send(lambda: rpc.volume.failover_host(
        ctx, host=services[0].host, cluster_name=services[0].cluster_name,
        secondary_backend_id=backend_id), undo=lambda: replication.restore(
            db, field='replication_status', value=rep_states.Status.FAILING_OVER,
            previous=previous), resource='Service', resource_id=services[0].host,
        what='failover_host')


def log_targets(db, conf, *, binary, server) -> tuple[list[str], list]:
    """(binaries, up services rows) a set-log / get-log body names (Cinder's
    _log_params_binaries_services)."""
    if binary == API_BINARY:
        return [API_BINARY], []
    binaries = list(LOG_BINARIES) if binary in ('*', None, '') else [binary]
    rows = db_services.get_all(db, binary=None if len(binaries) > 1 else binary,
                               host_or_cluster=server or None)
    down_time = conf.service_down_time
    return binaries, [row for row in rows if row.binary in binaries
                      and db_services.is_up(row, down_time=down_time)]


def _client(rpc, binary):
    return {db_services.VOLUME_BINARY: rpc.volume, db_services.SCHEDULER_BINARY: rpc.scheduler,
            db_services.BACKUP_BINARY: rpc.backup}[binary]


def set_log(conf, db, rpc, ctx, *, binary, server, prefix, level) -> None:
    """Set *level* on the loggers under *prefix* here (cinder-api) and in each up daemon.

    :raises InvalidInput: for a level Cinder does not take, before anything changes.
    """
    # NOTE(level): Cinder checks the level only where it applies it, so a daemon's bad
    # level is lost in its log; here every target is refused up front.
    log_levels.level_of(level)
    binaries, services = log_targets(db, conf, binary=binary, server=server)
    if API_BINARY in binaries:
        log_levels.set_levels(prefix, level)
    for service in services:
        _client(rpc, service.binary).set_log_levels(ctx, host=service.host, prefix=prefix,
                                                    level=level)


def get_log(conf, db, rpc, ctx, *, binary, server, prefix) -> list[dict]:
    """[{host, binary, levels}] of cinder-api (this process) and each up daemon."""
    binaries, services = log_targets(db, conf, binary=binary, server=server)
    result = []
    # NOTE(server): as Cinder, the API's own entry only when no other server was named.
    if API_BINARY in binaries and (not server or server == conf.host):
        result.append({'host': conf.host, 'binary': API_BINARY,
                       'levels': log_levels.get_levels(prefix)})
    for service in services:
        levels = _client(rpc, service.binary).get_log_levels(ctx, host=service.host,
                                                             prefix=prefix)
        result.append({'host': service.host, 'binary': service.binary, 'levels': levels})
    return result
