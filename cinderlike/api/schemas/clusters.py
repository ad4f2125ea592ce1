"""cinderlike-api: request bodies of PUT /clusters/{enable,disable} (Cinder's schemas)."""

from cinderlike.api.schemas import parameter_types
from cinderlike.api.schemas import types as type_schemas

enable_cluster = {
    'type': 'object',
    'properties': {
        'name': type_schemas.name,
        'binary': parameter_types.nullable_string,
    },
    'required': ['name'],
    'additionalProperties': False,
}

disable_cluster = {
    'type': 'object',
    'properties': {
        'name': type_schemas.name,
        'binary': parameter_types.nullable_string,
        'disabled_reason': {'type': ['string', 'null'], 'format': 'disabled_reason'},
    },
    'required': ['name'],
    'additionalProperties': False,
}
