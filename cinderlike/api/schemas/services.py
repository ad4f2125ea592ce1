"""cinderlike-api: request bodies of PUT /os-services/{action}."""

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

# Cinder's parameter_types.binary: a LOG_BINARIES name, or '' / '*' for all of them.
_log_binary = {'type': 'string',
               'enum': ['cinder-scheduler', 'cinder-volume', 'cinder-backup', 'cinder-api',
                        '', '*']}

get_log = {
    'type': 'object',
    'properties': {
        'binary': _log_binary,
        'server': parameter_types.nullable_string,
        'prefix': parameter_types.nullable_string,
    },
    'additionalProperties': False,
}

set_log = copy.deepcopy(get_log)
set_log['properties']['level'] = {'type': ['string', 'null'], 'format': 'level'}

freeze_and_thaw = {
    'type': 'object',
    'properties': {
        'cluster': parameter_types.nullable_string,
        'host': parameter_types.hostname,
    },
    'additionalProperties': False,
}

failover_host = copy.deepcopy(freeze_and_thaw)
failover_host['properties']['backend_id'] = parameter_types.nullable_string
