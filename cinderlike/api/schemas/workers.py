"""cinderlike-api: request body of POST /workers/cleanup (3.24), Cinder's schema."""

from cinderlike.api.schemas import parameter_types
from cinderlike.api.schemas import volumes as volume_schemas
from cinderlike.db import services as db_services

cleanup = {
    'type': 'object',
    'properties': {
        'cluster_name': parameter_types.hostname,
        'disabled': volume_schemas.boolean,
        'host': parameter_types.hostname,
        'is_up': volume_schemas.boolean,
        # NOTE(cinder): Cinder's schema names these two; backup services are cleaned too
        # (beyond Cinder) when the request names no binary.
        'binary': {'enum': [db_services.VOLUME_BINARY, db_services.SCHEDULER_BINARY]},
        'resource_id': {'type': ['string', 'null'], 'format': 'uuid'},
        'resource_type': {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255},
        'service_id': {'type': ['integer', 'string', 'null'], 'pattern': '^[0-9]*$',
                       'maxLength': 11},
    },
    'additionalProperties': False,
}
