"""cinderlike-api: volume type records → the types, extra specs, access and default-type documents.

What a caller sees of a type depends on policies the resource checks; the flags say the result.
"""

from cinderlike.policies import types as policy

ACCESS_KEY = 'os-volume-type-access:is_public'


def shown_specs(extra_specs: dict, *, sensitive: bool) -> dict:
    """All specs for readers of sensitive ones, else only Cinder's user-visible keys."""
    if sensitive:
        return dict(extra_specs)
    return {key: value for key, value in extra_specs.items()
            if key in policy.USER_VISIBLE_EXTRA_SPECS}


def item(record, *, specs: bool, sensitive: bool, qos: bool, access: bool) -> dict:
    """One type of GET /types[/{id}]: extra_specs, qos_specs_id and the access flag by policy."""
    shown = {'id': record.id, 'name': record.name, 'is_public': record.is_public,
             'description': record.description}
    if specs:
        shown['extra_specs'] = shown_specs(record.extra_specs, sensitive=sensitive)
    if qos:
        shown['qos_specs_id'] = record.qos_specs_id
    if access:
        shown[ACCESS_KEY] = record.is_public
    return shown


def show(record, **flags) -> dict:
    return {'volume_type': item(record, **flags)}


def index(records, *, next_href=None, **flags) -> dict:
    """{"volume_types": [...]} plus `volume_type_links` when the page is full."""
    shown = {'volume_types': [item(record, **flags) for record in records]}
    if next_href:
        shown['volume_type_links'] = [{'rel': 'next', 'href': next_href}]
    return shown


def managed(record, *, access: bool = False) -> dict:
    """The POST/PUT /types answer: Cinder's older view, every extra spec included."""
    shown = {'id': record.id, 'name': record.name, 'is_public': record.is_public,
             'extra_specs': dict(record.extra_specs), 'description': record.description}
    if access:
        shown[ACCESS_KEY] = record.is_public
    return {'volume_type': shown}


def access_list(type_id: str, projects: list[str]) -> dict:
    return {'volume_type_access': [{'volume_type_id': type_id, 'project_id': project}
                                   for project in projects]}


def _default(row) -> dict:
    return {'project_id': row.project_id, 'volume_type_id': row.volume_type_id}


def default_type(row) -> dict:
    return {'default_type': _default(row)}


def default_types(rows) -> dict:
    return {'default_types': [_default(row) for row in rows]}
