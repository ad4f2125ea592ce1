"""cinderlike-api: request bodies of /qos-specs, as Cinder's api/schemas/qos_specs.py.

A create takes any other keys beside `name` (the specs, `consumer` among them, are checked by
the operation); a set takes extra-spec style keys with string or null values.
"""

from cinderlike.api.schemas.types import extra_specs_with_null

# POST /qos-specs
create = {
    'type': 'object',
    'properties': {
        'qos_specs': {
            'type': 'object',
            'properties': {
                'name': {'type': 'string', 'format': 'name_skip_leading_trailing_spaces'},
            },
            'required': ['name'],
            'additionalProperties': True,
        },
    },
    'required': ['qos_specs'],
    'additionalProperties': False,
}

# PUT /qos-specs/{id}
set_keys = {
    'type': 'object',
    'properties': {'qos_specs': extra_specs_with_null},
    'required': ['qos_specs'],
    'additionalProperties': False,
}

# PUT /qos-specs/{id}/delete_keys
unset_keys = {
    'type': 'object',
    'properties': {
        'keys': {
            'type': 'array',
            'items': {'type': 'string', 'minLength': 1, 'maxLength': 255},
            'uniqueItems': True,
        },
    },
    'required': ['keys'],
    'additionalProperties': False,
}
