"""cinderlike-api: request bodies of volume types, extra specs, type access and default types.

Field rules are Cinder's parameter types: names 1-255 and not blank, printable descriptions,
extra spec keys of `[a-zA-Z0-9-_:. /]` (no spaces through the extra_specs API), values <= 255.
"""

import unicodedata


def _printable_ranges() -> str:
    """A regex class body of every printable BMP character (no C*, only Zs of Z*), as Cinder."""
    def printable(code: int) -> bool:
        category = unicodedata.category(chr(code))
        return not category.startswith('C') and (not category.startswith('Z') or category == 'Zs')

    ranges, start = [], None
    for code in range(0x10000):
        if printable(code) and start is None:
            start = code
        elif not printable(code) and start is not None:
            ranges.append((start, code - 1))
            start = None
    if start is not None:
        ranges.append((start, 0xFFFF))
    return ''.join(f'\\u{a:04x}' if a == b else f'\\u{a:04x}-\\u{b:04x}' for a, b in ranges)


name = {'type': 'string', 'minLength': 1, 'maxLength': 255, 'format': 'name'}
name_allow_zero_min_length = {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}
description = {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255,
               'pattern': f'^[{_printable_ranges()}]*$'}
boolean = {
    'type': ['boolean', 'string'],
    'enum': [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on', 'YES', 'Yes', 'yes', 'y', 't',
             False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off', 'NO', 'No', 'no', 'n',
             'f'],
}
extra_specs_with_null = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. /]{1,255}$': {'type': ['string', 'null'], 'maxLength': 255}},
    'additionalProperties': False,
}
extra_specs_with_no_spaces_key = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:.]{1,255}$': {'type': ['string', 'null'], 'minLength': 0,
                                     'maxLength': 255}},
    'additionalProperties': False,
}


def _wrapped(key: str, properties: dict, required=()) -> dict:
    inner = {'type': 'object', 'properties': properties, 'additionalProperties': False}
    if required:
        inner['required'] = list(required)
    return {'type': 'object', 'properties': {key: inner}, 'required': [key],
            'additionalProperties': False}


# POST /types
create = _wrapped('volume_type', {
    'name': name, 'description': description, 'extra_specs': extra_specs_with_null,
    'os-volume-type-access:is_public': boolean}, required=['name'])

# PUT /types/{id}
update = _wrapped('volume_type', {
    'name': name_allow_zero_min_length, 'description': description, 'is_public': boolean})

# POST /types/{id}/extra_specs
extra_specs_create = {
    'type': 'object', 'properties': {'extra_specs': extra_specs_with_no_spaces_key},
    'required': ['extra_specs'], 'additionalProperties': False,
}

# PUT /types/{id}/extra_specs/{key}: exactly one key, the one in the URL
extra_specs_update = dict(extra_specs_with_no_spaces_key, minProperties=1, maxProperties=1)

# POST /types/{id}/action
# (any project id of 1-255 characters, as Cinder: Keystone ids need not be UUIDs)
_project = {'project': {'type': 'string', 'minLength': 1, 'maxLength': 255}}
add_project_access = _wrapped('addProjectAccess', _project, required=['project'])
remove_project_access = _wrapped('removeProjectAccess', _project, required=['project'])

# PUT /default-types/{project_id}
default_type_set = {
    'type': 'object',
    'properties': {'default_type': {
        'type': 'object', 'properties': {'volume_type': name},
        'required': ['volume_type'], 'additionalProperties': False}},
    'required': ['default_type'],
}
