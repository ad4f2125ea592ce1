"""cinderlike-api: request bodies of /types/{type_id}/encryption (Cinder's schemas).

`encryption` may carry keys of its own (Cinder's additionalProperties); only the four spec
fields are stored.
"""

import copy

from oslo_utils import strutils

from cinderlike import exception
from cinderlike.api.schemas.volumes import DB_MAX_INT


def _check_key_size(value) -> bool:
    """Cinder's `key_size` format: null, or an integer (a string of one included)."""
    if value is None:
        return True
    if not strutils.is_int_like(value):
        raise exception.InvalidInput(reason='key_size must be an integer.')
    # NOTE(range): Cinder writes any integer string (the bounds apply to numbers only), and
    # one outside the column's range is its DataError answer.
    if not -DB_MAX_INT - 1 <= int(value) <= DB_MAX_INT:
        raise exception.InvalidInput(reason='Error writing field to database')
    return True


key_size = {'type': ['string', 'integer', 'null'], 'minimum': 0, 'maximum': DB_MAX_INT,
            'format': 'key_size'}

create = {
    'type': 'object',
    'properties': {
        'encryption': {
            'type': 'object',
            'properties': {
                'key_size': key_size,
                'provider': {'type': 'string', 'minLength': 0, 'maxLength': 255},
                'control_location': {'enum': ['front-end', 'back-end']},
                'cipher': {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255},
            },
            'required': ['provider', 'control_location'],
            'additionalProperties': True,
        },
    },
    'required': ['encryption'],
    'additionalProperties': False,
}

update = copy.deepcopy(create)
update['properties']['encryption']['required'] = []

# Format checkers of these bodies (api/validation.py `formats=`).
FORMATS = {'key_size': _check_key_size}
