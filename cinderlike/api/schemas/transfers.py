"""cinderlike-api: request bodies of volume transfers (Cinder's schemas/volume_transfer.py)."""

from cinderlike.api.schemas.volumes import boolean


def _check_name(value) -> bool:
    """Cinder's `name_skip_leading_trailing_spaces`: 1-255 characters once stripped."""
    # NOTE(oneOf): the name sits in a oneOf, so a failed check makes the oneOf fail and
    # the caller gets jsonschema's "is not valid under any of the given schemas", as
    # from Cinder. Cinder answers a non-string name with a 500 (its checker calls
    # .strip()); here the oneOf simply refuses it.
    return isinstance(value, str) and 0 < len(value.strip()) <= 255


FORMATS = {'name_skip_leading_trailing_spaces': _check_name}

_name = {'oneOf': [{'type': 'string', 'format': 'name_skip_leading_trailing_spaces'},
                   {'type': 'null'}]}
_uuid = {'type': 'string', 'format': 'uuid'}


def _transfer(**extra) -> dict:
    return {
        'type': 'object',
        'properties': {'transfer': {
            'type': 'object',
            'properties': {'volume_id': _uuid, 'name': _name, **extra},
            'required': ['volume_id'],
            'additionalProperties': False,
        }},
        'required': ['transfer'],
        'additionalProperties': False,
    }


create = _transfer()
# 3.55: snapshots travel with the volume unless `no_snapshots`.
create_v3_55 = _transfer(no_snapshots=boolean)

accept = {
    'type': 'object',
    'properties': {'accept': {
        'type': 'object',
        'properties': {'auth_key': {'type': ['string', 'integer']}},
        'required': ['auth_key'],
        'additionalProperties': False,
    }},
    'required': ['accept'],
    'additionalProperties': False,
}
