"""cinderlike-api: request bodies of /volumes, their metadata and the os-* volume actions.

Cinder's shapes: up to 3.52 unknown properties of `volume` pass through; from 3.53 they are
refused. Sizes may be integers or digit strings, as python-cinderclient sends either.
"""

import copy

DB_MAX_INT = 0x7FFFFFFF

_name = {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}
_uuid = {'type': ['string', 'null'], 'format': 'uuid'}
_metadata_key = '^[a-zA-Z0-9-_:. /]{1,255}$'
metadata = {
    'type': 'object',
    'patternProperties': {_metadata_key: {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}
_metadata_allows_null = dict(metadata, type=['object', 'null'])
_size = {'type': ['integer', 'string'], 'pattern': '^[0-9]+$', 'minimum': 1,
         'maximum': DB_MAX_INT}
_size_allows_null = dict(_size, type=['integer', 'string', 'null'])
_TRUE = [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on', 'YES', 'Yes', 'yes', 'y', 't']
_FALSE = [False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off', 'NO', 'No', 'no', 'n', 'f']
boolean = {'type': ['boolean', 'string'], 'enum': _TRUE + _FALSE}


def _body(key: str, inner: dict) -> dict:
    return {'type': 'object', 'properties': {key: inner}, 'required': [key],
            'additionalProperties': False}


create = _body('volume', {
    'type': 'object',
    'properties': {
        'name': _name, 'description': _name, 'display_name': _name,
        'display_description': _name, 'volume_type': _name,
        'metadata': _metadata_allows_null, 'snapshot_id': _uuid, 'source_volid': _uuid,
        'consistencygroup_id': _uuid, 'group_id': _uuid, 'backup_id': _uuid,
        'size': _size_allows_null,
        'availability_zone': {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255},
        'multiattach': {'type': ['boolean', 'string', 'null'], 'enum': _TRUE + _FALSE + [None]},
        'image_id': _name, 'imageRef': _name,
    },
    'additionalProperties': True,
})
# Cinder's schemas/scheduler_hints.py: one volume id or a set of them; other hints pass.
_volume_ids = {'oneOf': [{'type': 'string', 'format': 'uuid'},
                         {'type': 'array', 'items': {'type': 'string', 'format': 'uuid'},
                          'uniqueItems': True}]}
create['properties']['OS-SCH-HNT:scheduler_hints'] = {
    'type': ['object', 'null'],
    'properties': {
        'local_to_instance': {'oneOf': [{'type': 'null'}, {'type': 'string', 'format': 'uuid'}]},
        'different_host': _volume_ids, 'same_host': _volume_ids,
        'query': {'type': ['string', 'object']},
    },
    'additionalProperties': True,
}
create_v3_53 = copy.deepcopy(create)
create_v3_53['properties']['volume']['additionalProperties'] = False

update = _body('volume', {
    'type': 'object',
    'properties': {'name': _name, 'description': _name, 'display_name': _name,
                   'display_description': _name, 'metadata': metadata},
    'additionalProperties': False,
})

# From 3.53 an update must change something (Cinder's update_v353).
update_v3_53 = copy.deepcopy(update)
update_v3_53['properties']['volume']['anyOf'] = [
    {'required': [key]}
    for key in ('name', 'description', 'display_name', 'display_description', 'metadata')]

metadata_create = _body('metadata', metadata)
metadata_update_item = _body('meta', metadata)

extend = _body('os-extend', {'type': 'object', 'properties': {'new_size': _size},
                             'required': ['new_size'], 'additionalProperties': False})
set_bootable = _body('os-set_bootable', {
    'type': 'object', 'properties': {'bootable': boolean}, 'required': ['bootable'],
    'additionalProperties': False})
update_readonly_flag = _body('os-update_readonly_flag', {
    'type': 'object', 'properties': {'readonly': boolean}, 'required': ['readonly'],
    'additionalProperties': False})
force_delete = _body('os-force_delete', {})
revert = _body('revert', {'type': 'object',
                          'properties': {'snapshot_id': {'type': ['string', 'null']}},
                          'additionalProperties': True})
reset_status = _body('os-reset_status', {
    'type': 'object',
    'properties': {'status': {'type': ['string', 'null']},
                   'attach_status': {'type': ['string', 'null']},
                   'migration_status': {'type': ['string', 'null']}},
    'additionalProperties': False,
})


# The legacy attach actions (Cinder's schemas/volume_actions.py and admin_actions.py).
reserve = _body('os-reserve', {})
unreserve = _body('os-unreserve', {})
begin_detaching = _body('os-begin_detaching', {})
roll_detaching = _body('os-roll_detaching', {})
initialize_connection = _body('os-initialize_connection', {
    'type': 'object', 'properties': {'connector': {'type': ['object', 'string']}},
    'required': ['connector'], 'additionalProperties': False})
terminate_connection = _body('os-terminate_connection', {
    'type': 'object', 'properties': {'connector': {'type': ['string', 'object', 'null']}},
    'required': ['connector'], 'additionalProperties': False})
attach = _body('os-attach', {
    'type': 'object',
    'properties': {'instance_uuid': {'type': 'string', 'format': 'uuid'},
                   'mountpoint': {'type': 'string', 'minLength': 1, 'maxLength': 255},
                   'host_name': {'type': 'string', 'maxLength': 255},
                   'mode': {'type': 'string', 'enum': ['rw', 'ro']}},
    'required': ['mountpoint'],
    'anyOf': [{'required': ['instance_uuid']}, {'required': ['host_name']}],
    'additionalProperties': False})
detach = _body('os-detach', {
    'type': ['object', 'null'],
    'properties': {'attachment_id': {'oneOf': [{'type': 'string', 'format': 'uuid'},
                                               {'type': 'null'}]}},
    'additionalProperties': False})
force_detach = _body('os-force_detach', {
    'type': 'object',
    'properties': {'connector': {'type': ['string', 'object', 'null']},
                   'attachment_id': {'type': ['string', 'null']}},
    'additionalProperties': False})


# Retype and migration (Cinder's schemas/volume_actions.py retype, admin_actions.py).
retype = _body('os-retype', {
    'type': 'object',
    'properties': {'new_type': {'type': 'string'},
                   'migration_policy': {'type': ['string', 'null'],
                                        'enum': ['on-demand', 'never']}},
    'required': ['new_type'], 'additionalProperties': False})
migrate_volume = _body('os-migrate_volume', {
    'type': 'object',
    'properties': {'host': {'type': 'string', 'maxLength': 255},
                   'force_host_copy': boolean, 'lock_volume': boolean},
    'required': ['host'], 'additionalProperties': False})
migrate_volume_v316 = _body('os-migrate_volume', {
    'type': 'object',
    'properties': {'host': {'type': ['string', 'null'], 'maxLength': 255},
                   'force_host_copy': boolean, 'lock_volume': boolean,
                   'cluster': {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}},
    'additionalProperties': False})
migrate_volume_completion = _body('os-migrate_volume_completion', {
    'type': 'object',
    'properties': {'new_volume': {'type': 'string', 'format': 'uuid'},
                   'error': {'type': ['string', 'null', 'boolean']}},
    'required': ['new_volume'], 'additionalProperties': False})


def is_true(value) -> bool:
    """A value the `boolean` schema accepted, as a bool."""
    return value in _TRUE
