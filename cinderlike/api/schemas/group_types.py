"""cinderlike-api: request bodies of group types (3.11) and their group specs.

The field rules are those of volume types (api/schemas/types.py); group specs take the
extra specs' key alphabet, and a type's initial specs may be null (Cinder's
metadata_allows_null).
"""

from cinderlike.api.schemas import types

group_specs_allows_null = {
    'type': ['object', 'null'],
    'patternProperties': {'^[a-zA-Z0-9-_:. /]{1,255}$': {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}

# POST /group_types
create = types._wrapped('group_type', {
    'name': types.name, 'description': types.description, 'is_public': types.boolean,
    'group_specs': group_specs_allows_null}, required=['name'])

# PUT /group_types/{id}
update = types._wrapped('group_type', {
    'name': types.name_allow_zero_min_length, 'description': types.description,
    'is_public': types.boolean})

# POST /group_types/{id}/group_specs
specs_create = {
    'type': 'object', 'properties': {'group_specs': types.extra_specs_with_no_spaces_key},
    'required': ['group_specs'], 'additionalProperties': False,
}

# PUT /group_types/{id}/group_specs/{key}: exactly one key, the one in the URL
specs_update = dict(types.extra_specs_with_no_spaces_key, minProperties=1, maxProperties=1)
