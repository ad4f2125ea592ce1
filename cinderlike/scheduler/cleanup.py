"""cinderlike-scheduler: POST /workers/cleanup's distribution (Cinder's work_cleanup) and the
scheduler's own cleanup (volumes a dead scheduler left `creating` without a backend).

A volume service's rows go to its cluster's queue while any member is up (a live member
settles them), else to its own host when it is up; a backup service's to itself when it is
up, else to a live backup service of its zone (backup services are not clustered, any may
settle another's statuses); otherwise the service is `unavailable`.
"""

import datetime

from oslo_log import log as logging

from cinderlike import exception, messages
from cinderlike.backup import rpcapi as backup_rpcapi
from cinderlike.db import services as db_services
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import utcnow

LOG = logging.getLogger(__name__)

def _host_matches(service_host: str, wanted: str) -> bool:
    """Cinder's host filter: `node` also matches `node@backend` and `node@backend#pool`."""
    if service_host == wanted:
        return True
    if '#' in wanted:
        return False
    return any(service_host.startswith(wanted + sep) for sep in ('#', '@'))


def describe(service) -> dict:
    """What the API answers about a service (Cinder's workers view)."""
    return {'id': service.id, 'host': service.host, 'binary': service.binary,
            'cluster_name': service.cluster_name}


# The services that hold workers rows of each resource type (scheduler rows are volumes).
_BINARIES_OF = {'Backup': (db_services.BACKUP_BINARY,),
                'Volume': (db_services.VOLUME_BINARY, db_services.SCHEDULER_BINARY),
                'Snapshot': (db_services.VOLUME_BINARY,)}


def select_services(db, request: dict) -> list:
    """Service rows a cleanup request names (is_up defaults to False: only down services);
    a resource_type selects only the services that hold rows of that type."""
    rows = db_services.get_all(db, binary=request.get('binary'),
                               disabled=request.get('disabled'),
                               cluster_name=request.get('cluster_name'))
    host, service_id = request.get('host'), request.get('service_id')
    binaries = _BINARIES_OF.get(request.get('resource_type'),
                                db_services.CLEANABLE_BINARIES)
    return [row for row in rows if row.binary in binaries
            and (service_id is None or row.id == int(service_id))
            and (host is None or _host_matches(row.host or '', host))]


def _backup_cleaner(db, conf, service, up: bool) -> str | None:
    """The backup host that settles *service*'s rows: itself when up, else a live peer."""
    if up:
        return service.host
    try:
        return backup_rpcapi.choose_host(conf, db, host=None,
                                         availability_zone=service.availability_zone)
    except exception.ServiceNotFound:
        return None


def distribute(db, *, conf, request: dict, volume_api, scheduler_api, backup_api, ctx):
    """Cast do_cleanup for each selected service someone can clean; (cleaning, unavailable)."""
    down_time = conf.service_down_time
    now = utcnow()
    services = select_services(db, request)
    every = db_services.get_all(db, binary=db_services.VOLUME_BINARY)
    is_up = bool(request.get('is_up', False))
    cleaning, unavailable = [], []
    for service in services:
        up = db_services.is_up(service, down_time=down_time, now=now)
        if up != is_up:
            continue
        cluster_up = service.cluster_name and any(
            peer.cluster_name == service.cluster_name
            and db_services.is_up(peer, down_time=down_time, now=now) for peer in every)
        cleaner = (_backup_cleaner(db, conf, service, up)
                   if service.binary == db_services.BACKUP_BINARY else None)
        if not (up or cluster_up or cleaner):
            unavailable.append(service)
            continue
        cleanup_request = {'service_ids': [service.id], 'until': request.get('until'),
                           'resource_type': request.get('resource_type'),
                           'resource_id': request.get('resource_id')}
        if service.binary == db_services.VOLUME_BINARY:
            volume_api.do_cleanup(ctx, cleanup_request=cleanup_request, host=service.host,
                                  cluster_name=service.cluster_name if cluster_up else None)
        elif cleaner:
            backup_api.do_cleanup(ctx, cleanup_request=cleanup_request, host=cleaner)
        else:
            scheduler_api.do_cleanup(ctx, cleanup_request=cleanup_request)
        cleaning.append(service)
    LOG.info('Workers cleanup request finished. Cleaning: %(c)s; unavailable: %(u)s',
             {'c': [s.host for s in cleaning], 'u': [s.host for s in unavailable]})
    return cleaning, unavailable


def clean_unplaced(db, ctx, *, conf, until: datetime.datetime | None) -> int:
    """`error`, with a user message each, for volumes still `creating` without a backend
    well before *until*: no live scheduler takes service_down_time to place one, so a dead
    scheduler dropped them."""
    cutoff = (until or utcnow()) - datetime.timedelta(seconds=conf.service_down_time)
    failed = db_volumes.fail_unplaced(db, before=cutoff)
    for volume_id, project_id in failed.items():
        messages.create(db, ctx, conf=conf, action=messages.Action.SCHEDULE_ALLOCATE_VOLUME,
                        resource_uuid=volume_id, detail=messages.Detail.UNKNOWN_ERROR,
                        project_id=project_id)
    if failed:
        LOG.warning('Set %d volumes left unplaced by a stopped scheduler to error',
                    len(failed))
    return len(failed)
