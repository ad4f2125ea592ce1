"""cinderlike-api: request bodies of /snapshots, their metadata and the snapshot actions.

Cinder's shapes: create refuses unknown properties (and `display_description`), update needs
one of the name/description keys, metadata keys through the metadata API have no '/'.
"""

from cinderlike import exception
from cinderlike.api.schemas import types, volumes
from cinderlike.states import snapshots as states

_uuid_allow_null = {'oneOf': [{'type': 'string', 'format': 'uuid'}, {'type': 'null'}]}


def _body(key: str, inner: dict, *, extra: bool = False) -> dict:
    return {'type': 'object', 'properties': {key: inner}, 'required': [key],
            'additionalProperties': extra}


create = _body('snapshot', {
    'type': 'object',
    'properties': {
        'name': types.name_allow_zero_min_length,
        'display_name': types.name_allow_zero_min_length,
        'description': types.description, 'volume_id': _uuid_allow_null,
        'force': types.boolean, 'metadata': dict(volumes.metadata, type=['object', 'null']),
    },
    'required': ['volume_id'],
    'additionalProperties': False,
})

update = _body('snapshot', {
    'type': 'object',
    'properties': {
        'name': types.name_allow_zero_min_length, 'description': types.description,
        'display_name': types.name_allow_zero_min_length,
        'display_description': types.description,
    },
    'additionalProperties': False,
    'anyOf': [{'required': ['name']}, {'required': ['description']},
              {'required': ['display_name']}, {'required': ['display_description']}],
})

_metadata = {
    'type': 'object',
    'patternProperties': {'^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}
# POST and PUT /metadata; other top-level keys pass, as in Cinder.
metadata_create = _body('metadata', _metadata, extra=True)
metadata_update_item = _body('meta', dict(_metadata, minProperties=1, maxProperties=1),
                             extra=True)

reset_status = _body('os-reset_status', {
    'type': 'object', 'properties': {'status': {'type': 'string', 'format': 'snapshot_status'}},
    'required': ['status'], 'additionalProperties': False})
update_snapshot_status = _body('os-update_snapshot_status', {
    'type': 'object',
    'properties': {'status': {'type': 'string'}, 'progress': {'format': 'progress'}},
    'required': ['status'], 'additionalProperties': False})
force_delete = _body('os-force_delete', {})


def _check_status(value) -> bool:
    """Cinder's `snapshot_status` format. :raises InvalidParameterValue:"""
    if not value or value.lower() not in states.ALL:
        valid = tuple(str(s) for s in states.ALL)
        raise exception.InvalidParameterValue(
            err=f'Snapshot status: {value} is invalid, valid statuses are: {valid}.')
    return True


def _check_progress(value) -> bool:
    """Cinder's `progress` format: 'N%' with 0 <= N <= 100. :raises InvalidInput:"""
    if value:
        try:
            number = int(value[:-1])
        except (TypeError, ValueError):
            raise exception.InvalidInput(
                reason='progress must be an integer percentage') from None
        if not 0 <= number <= 100 or value[-1] != '%':
            raise exception.InvalidInput(
                reason='progress must be an integer percentage between 0 and 100')
    return True


# Format checkers of the action bodies (api/validation.py `formats=`).
FORMATS = {'snapshot_status': _check_status, 'progress': _check_progress}
