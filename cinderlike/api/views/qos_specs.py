"""cinderlike-api: QoS specs records → Cinder's qos_specs and qos_associations documents."""

COLLECTION = 'qos-specs'


def item(record) -> dict:
    return {'id': record.id, 'name': record.name, 'consumer': record.consumer,
            'specs': dict(record.specs)}


def detail(record, *, links) -> dict:
    """GET /qos-specs/{id} and the POST answer: the specs and their self/bookmark links."""
    return {'qos_specs': item(record), 'links': links.item(record.id, COLLECTION)}


def index(records, *, next_href=None) -> dict:
    """{"qos_specs": [...]} plus `qos_specs_links` when the page is full."""
    shown = {'qos_specs': [item(record) for record in records]}
    if next_href:
        shown['qos_specs_links'] = [{'rel': 'next', 'href': next_href}]
    return shown


def associations(types) -> dict:
    return {'qos_associations': [{'association_type': 'volume_type', 'name': vtype.name,
                                  'id': vtype.id} for vtype in types]}
