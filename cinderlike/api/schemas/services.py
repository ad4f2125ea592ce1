"""cinderlike-api: request bodies of PUT /os-services/{enable,disable,disable-log-reason}."""

import copy

from cinderlike.api.schemas import parameter_types

# `service` is the pre-Kilo name of `binary`; Cinder still accepts either.
enable_and_disable = {
    'type': 'object',
    'properties': {
        'binary': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'host': parameter_types.hostname,
        'cluster': parameter_types.nullable_string,
        'service': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    },
    'anyOf': [{'required': ['binary']}, {'required': ['service']}],
    'additionalProperties': False,
}

disable_log_reason = copy.deepcopy(enable_and_disable)
disable_log_reason['properties']['disabled_reason'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255, 'format': 'disabled_reason'}
