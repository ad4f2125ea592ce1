"""cinderlike-api: group type records → the group_type(s) documents (3.11).

`group_specs` is shown only to callers `group:access_group_types_specs` allows.
"""


def item(record, *, specs: bool) -> dict:
    shown = {'id': record.id, 'name': record.name, 'description': record.description,
             'is_public': record.is_public}
    if specs:
        shown['group_specs'] = dict(record.group_specs)
    return shown


def show(record, *, specs: bool) -> dict:
    return {'group_type': item(record, specs=specs)}


def index(records, *, specs: bool, next_href=None) -> dict:
    """{"group_types": [...]} plus `group_type_links` when the page is full."""
    shown = {'group_types': [item(record, specs=specs) for record in records]}
    if next_href:
        shown['group_type_links'] = [{'rel': 'next', 'href': next_href}]
    return shown
