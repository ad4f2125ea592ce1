"""cinderlike-api: request bodies of /manageable_volumes, /manageable_snapshots (and their
legacy /os-volume-manage, /os-snapshot-manage paths) and of the os-unmanage actions (Cinder's).
"""

import copy

from cinderlike.api.schemas import types, volumes

# Cinder's cinder_host: hostname[@backend[#pool]], brackets for IPv6 pools.
cinder_host = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
               'pattern': r'^[a-zA-Z0-9-._#@:/+\[\]]*$'}
_metadata_allows_null = dict(volumes.metadata, type=['object', 'null'])

volume_manage_create = {
    'type': 'object',
    'properties': {
        'volume': {
            'type': 'object',
            'properties': {
                'description': types.description,
                'availability_zone': types.name_allow_zero_min_length,
                'bootable': types.boolean,
                'volume_type': types.name_allow_zero_min_length,
                'name': types.name_allow_zero_min_length,
                'host': cinder_host,
                'ref': {'type': ['object', 'string']},
                'metadata': _metadata_allows_null,
            },
            'required': ['ref'],
            'additionalProperties': False,
        },
    },
    'required': ['volume'],
    'additionalProperties': False,
}

# 3.16: a cluster may name where the object is instead of a host.
volume_manage_create_v3_16 = copy.deepcopy(volume_manage_create)
volume_manage_create_v3_16['properties']['volume']['properties']['cluster'] = {
    'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}

snapshot_manage_create = {
    'type': 'object',
    'properties': {
        'snapshot': {
            'type': 'object',
            'properties': {
                'description': types.description,
                'metadata': _metadata_allows_null,
                'name': types.name_allow_zero_min_length,
                'volume_id': {'type': 'string', 'format': 'uuid'},
                'ref': {'type': ['object', 'null', 'string']},
            },
            'required': ['ref', 'volume_id'],
            'additionalProperties': False,
        },
    },
    'required': ['snapshot'],
    'additionalProperties': False,
}

unmanage = {'type': 'object', 'properties': {'os-unmanage': {}},
            'required': ['os-unmanage'], 'additionalProperties': False}
