"""cinderlike-api: request bodies of /attachments (Cinder's schemas/attachments.py)."""

import copy

_uuid = {'type': 'string', 'format': 'uuid'}

create = {
    'type': 'object',
    'properties': {'attachment': {
        'type': 'object',
        'properties': {'instance_uuid': _uuid, 'connector': {'type': ['object', 'null']},
                       'volume_uuid': _uuid},
        'required': ['volume_uuid'],
        'additionalProperties': False,
    }},
    'required': ['attachment'],
    'additionalProperties': False,
}

# 3.54: the attach mode.
create_v3_54 = copy.deepcopy(create)
create_v3_54['properties']['attachment']['properties']['mode'] = {'type': 'string',
                                                                   'enum': ['rw', 'ro']}

update = {
    'type': 'object',
    'properties': {'attachment': {
        'type': 'object',
        'properties': {'connector': {'type': 'object', 'minProperties': 1}},
        'required': ['connector'],
        'additionalProperties': False,
    }},
    'required': ['attachment'],
    'additionalProperties': False,
}

complete = {
    'type': 'object',
    'properties': {'os-complete': {}},
    'required': ['os-complete'],
    'additionalProperties': False,
}
