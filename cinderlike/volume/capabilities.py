"""What a backend tells an admin it can do (cinderlike-volume, answering GET /capabilities).

Cinder's init_capabilities: the driver's static stats plus `properties`, the standard
capabilities a volume type's extra specs may set, described as title/description/type.
"""

import copy

# Cinder's standard capabilities (volume/driver.py _init_standard_capabilities).
STANDARD_PROPERTIES = {
    'thin_provisioning': {'title': 'Thin Provisioning',
                          'description': 'Sets thin provisioning.', 'type': 'boolean'},
    'compression': {'title': 'Compression',
                    'description': 'Enables compression.', 'type': 'boolean'},
    'qos': {'title': 'QoS', 'description': 'Enables QoS.', 'type': 'boolean'},
    'replication_enabled': {'title': 'Replication',
                            'description': 'Enables replication.', 'type': 'boolean'},
}


def describe(stats: dict | None) -> dict:
    """A copy of the driver's *stats* with `properties` set to the standard capabilities."""
    capabilities = copy.deepcopy(stats) if stats else {}
    capabilities['properties'] = copy.deepcopy(STANDARD_PROPERTIES)
    return capabilities
