"""cinderlike-api: POST /workers/cleanup's rules (Cinder's WorkerController.cleanup): the
request the scheduler's work_cleanup receives, with a lone resource_id resolved to its row."""

from cinderlike import exception
from cinderlike.api.schemas import volumes as volume_schemas
from cinderlike.db import workers as db_workers
from cinderlike.db.models import utcnow

# Cinder's cleanable resource types (CinderCleanableObject.cleanable_resource_types), and
# NOTE(backup): Backup, whose rows backup services settle (Cinder's backups are not
# cleanable objects; cinderlike's backup operations hold workers rows like volumes').
RESOURCE_TYPES = ('Volume', 'Snapshot', 'Backup')
_LOCATION_KEYS = {'service_id', 'cluster_name', 'host'}


def _resource_type(value: str) -> str:
    """:raises InvalidInput: for a type no cleanup knows (case-insensitive, as Cinder)."""
    name = value.title()
    if name not in RESOURCE_TYPES:
        raise exception.InvalidInput(
            reason=f"Resource type {name} not valid, must be {' or '.join(RESOURCE_TYPES)}")
    return name


def _locate(db, request: dict) -> None:
    """Find where a resource's operation runs when the caller named only the resource.

    :raises InvalidInput: when no row, or more than one, is pending cleanup for it.
    """
    resource_id = request['resource_id']
    rows = db_workers.get_all(db, resource_id=resource_id,
                              resource_type=request.get('resource_type'))
    if not rows:
        raise exception.InvalidInput(
            reason=f'There is no resource with UUID {resource_id} pending cleanup.')
    if len(rows) > 1:
        raise exception.InvalidInput(
            reason=f'There are multiple resources with UUID {resource_id} pending cleanup.  '
                   f'Please be more specific.')
    request.update(service_id=rows[0].service_id, resource_type=rows[0].resource_type)


def cleanup(db, rpc, ctx, *, body: dict) -> tuple[list[dict], list[dict]]:
    """Ask the scheduler to distribute the cleanup; (cleaning, unavailable) services.

    :raises InvalidInput:
    """
    request = {key: value for key, value in body.items() if value is not None}
    for key in ('disabled', 'is_up'):
        if key in request:
            request[key] = volume_schemas.is_true(request[key])
    if request.get('resource_type'):
        request['resource_type'] = _resource_type(request['resource_type'])
    if request.get('service_id') == '':
        # NOTE(service_id): the schema's digits pattern admits ''; Cinder's object field
        # then fails (a 500), and dropping it would widen the cleanup to every service.
        raise exception.InvalidInput(reason='service_id must be an integer.')
    if 'service_id' in request:
        request['service_id'] = int(request['service_id'])
    if request.get('resource_id') and not _LOCATION_KEYS & request.keys():
        _locate(db, request)
    request['until'] = utcnow().isoformat()
    return rpc.scheduler.work_cleanup(ctx, cleanup_request=request)
