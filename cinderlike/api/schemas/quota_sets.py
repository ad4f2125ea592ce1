"""cinderlike-api: request bodies of os-quota-sets and os-quota-class-sets (Cinder's schemas).

The key checks need the quota resources, which depend on the volume types, so they are
format checkers built per request by `formats(resources)`.
"""

import falcon
from oslo_utils import strutils

from cinderlike import exception

DB_MAX_INT = 0x7FFFFFFF
# Keys a quota-set body may carry besides resources; they are ignored.
NON_QUOTA_KEYS = ('tenant_id', 'id')

update_quota = {
    'type': 'object',
    'properties': {
        'quota_set': {'type': 'object', 'minProperties': 1, 'format': 'quota_set'},
    },
    'required': ['quota_set'],
    'additionalProperties': False,
}

update_quota_class = {
    'type': 'object',
    'properties': {
        'quota_class_set': {
            'type': 'object',
            'format': 'quota_class_set',
            'patternProperties': {
                '^[a-zA-Z0-9-_:. ]{1,255}$': {
                    'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': -1,
                    'minLength': 1, 'maximum': DB_MAX_INT,
                },
            },
            'additionalProperties': False,
        },
    },
    'required': ['quota_class_set'],
    'additionalProperties': False,
}


def limit(value, name: str) -> int:
    """*value* as a quota limit (-1 … DB_MAX_INT); :raises Invalid: with oslo's wording."""
    try:
        return strutils.validate_integer(value, name, -1, DB_MAX_INT)
    except ValueError as error:
        raise exception.Invalid(str(error)) from None


def formats(resources: list[str]) -> dict:
    """The `quota_set` and `quota_class_set` format checkers for these *resources*."""
    known = set(resources)

    def quota_set(instance) -> bool:
        # NOTE(order): as Cinder, keys are walked in body order: a bad value of a known key
        # is reported at once, unknown keys only after the walk.
        bad = []
        for key, value in instance.items():
            if key in NON_QUOTA_KEYS:
                continue
            if key not in known:
                bad.append(key)
                continue
            limit(value, key)
            if isinstance(value, str):
                # NOTE(string): Cinder compares the string with the usage (a TypeError,
                # its plain 400); a limit is a JSON integer.
                raise falcon.HTTPBadRequest()
        if bad:
            raise exception.InvalidInput(reason=f"Bad key(s) in quota set: {', '.join(bad)}")
        return True

    def quota_class_set(instance) -> bool:
        bad = [key for key in instance if key not in known]
        if bad:
            raise exception.InvalidInput(
                reason=f"Bad key(s) in quota class set: {', '.join(bad)}")
        return True

    return {'quota_set': quota_set, 'quota_class_set': quota_class_set}
