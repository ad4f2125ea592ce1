"""cinderlike-api: request bodies of /backups, restore, import_record and the backup actions.

Cinder's shapes: create refuses unknown properties; `metadata` joins it at 3.43 and
`availability_zone` at 3.51; update takes name and description (and metadata from 3.43).
"""

import base64
import binascii
import copy

from cinderlike import exception
from cinderlike.api.schemas import types, volumes
from cinderlike.api.schemas.parameter_types import nullable_string
from cinderlike.states import backups as states

_uuid = {'type': 'string', 'format': 'uuid'}
_uuid_allow_null = {'type': ['string', 'null'], 'format': 'uuid'}
_container = {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}
_metadata = {
    'type': 'object',
    'patternProperties': {'^[a-zA-Z0-9-_:. /]{1,255}$': {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}


def _body(key: str, inner: dict, *, nullable: bool = False) -> dict:
    inner = dict(inner, type=['object', 'null'] if nullable else 'object',
                 additionalProperties=False)
    return {'type': 'object', 'properties': {key: inner}, 'required': [key],
            'additionalProperties': False}


create = _body('backup', {
    'properties': {
        'volume_id': _uuid, 'container': _container, 'description': types.description,
        'incremental': types.boolean, 'force': types.boolean,
        'name': types.name_allow_zero_min_length, 'snapshot_id': _uuid_allow_null,
    },
    'required': ['volume_id'],
})
create_v3_43 = copy.deepcopy(create)
create_v3_43['properties']['backup']['properties']['metadata'] = dict(
    volumes.metadata, type=['object', 'null'])
create_v3_51 = copy.deepcopy(create_v3_43)
create_v3_51['properties']['backup']['properties']['availability_zone'] = nullable_string

update = _body('backup', {'properties': {'name': types.name_allow_zero_min_length,
                                         'description': types.description}}, nullable=True)
update_v3_43 = copy.deepcopy(update)
update_v3_43['properties']['backup']['properties']['metadata'] = _metadata

restore = _body('restore', {'properties': {'name': types.name_allow_zero_min_length,
                                           'volume_id': _uuid_allow_null}}, nullable=True)

import_record = _body('backup-record', {
    'properties': {
        'backup_service': {'type': 'string', 'minLength': 0, 'maxLength': 255},
        'backup_url': {'type': 'string', 'minLength': 1, 'format': 'base64'},
    },
    'required': ['backup_service', 'backup_url'],
})

reset_status = _body('os-reset_status', {
    'properties': {'status': {'type': 'string', 'format': 'backup_status'}},
    'required': ['status']})
force_delete = {'type': 'object', 'properties': {'os-force_delete': {}},
                'required': ['os-force_delete'], 'additionalProperties': False}


def _check_base64(value) -> bool:
    """Cinder's `base64` format: a string base64 decodes."""
    if not isinstance(value, str):
        return True
    try:
        base64.decodebytes(value.encode('utf-8'))
    except binascii.Error:
        return False
    return True


def _check_status(value) -> bool:
    """Cinder's `backup_status` format. :raises InvalidParameterValue:"""
    if not value or value.lower() not in states.RESET_STATUSES:
        valid = [str(s) for s in states.RESET_STATUSES]
        raise exception.InvalidParameterValue(
            err=f'Backup status: {value} is invalid, valid statuses are: {valid}.')
    return True


# Format checkers of these bodies (api/validation.py `formats=`).
FORMATS = {'base64': _check_base64, 'backup_status': _check_status}
