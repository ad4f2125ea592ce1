"""cinderlike-api: request-body parsing and JSON-schema validation, with Cinder's messages."""

import json

import falcon
import jsonschema
from oslo_utils import uuidutils

from cinderlike import exception


def _check_disabled_reason(value) -> bool:
    """Cinder's `disabled_reason` format: 1-255 characters once surrounding spaces go."""
    if not isinstance(value, str):
        return True
    stripped = value.strip()
    if len(stripped) < 1:
        raise exception.InvalidInput(
            reason='disabled_reason has a minimum character requirement of 1.')
    if len(stripped) > 255:
        raise exception.InvalidInput(reason='disabled_reason has more than 255 characters.')
    return True


def _check_name(value) -> bool:
    """Cinder's `name` format: not empty and not only blanks."""
    if not value:
        raise exception.InvalidName(reason="The 'name' can not be None.")
    if isinstance(value, str) and not value.strip():
        raise exception.InvalidName(reason="The 'name' can not be empty.")
    return True


def _check_name_skip_spaces(value) -> bool:
    """Cinder's `name_skip_leading_trailing_spaces` format: 1-255 characters once stripped."""
    if not value:
        raise exception.InvalidName(reason="The 'name' can not be None.")
    if not isinstance(value, str):
        return True
    stripped = value.strip()
    if not stripped:
        raise exception.InvalidName(reason="The 'name' can not be empty.")
    if len(stripped) > 255:
        raise exception.InvalidName(reason="The 'name' can not be greater than 255 characters.")
    return True


def _check_uuid(value) -> bool:
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)


# NOTE(format): Cinder's format checkers raise InvalidInput themselves, which escapes
# jsonschema and reaches the caller as "Invalid input received: ..." (400).
_FORMATS = jsonschema.FormatChecker()
_FORMATS.checks('disabled_reason')(_check_disabled_reason)
_FORMATS.checks('name')(_check_name)
_FORMATS.checks('name_skip_leading_trailing_spaces')(_check_name_skip_spaces)
_FORMATS.checks('uuid')(_check_uuid)


def load_body(req: falcon.Request, *, limit: int):
    """The JSON request body, or None when there is none.

    :raises Invalid: "Malformed request body" when it is not JSON; RequestTooLarge past
        `osapi_max_request_body_size` (a chunked body has no Content-Length to check first).
    """
    raw = req.bounded_stream.read(limit + 1)
    if len(raw) > limit:
        raise exception.RequestTooLarge()
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        raise exception.Invalid('Malformed request body') from None


def validate(schema: dict, body, *, formats: dict | None = None) -> None:
    """Check *body* against *schema*; *formats* adds this call's own format checkers.

    :raises ValidationError: with Cinder's "Invalid input for field/attribute ..." text.
    """
    checker = _FORMATS
    if formats:
        # NOTE(formats): some checks depend on data (quota resources come from the volume
        # types), so they are bound per request instead of registered once.
        checker = jsonschema.FormatChecker(formats=())
        checker.checkers = {**_FORMATS.checkers,
                            **{name: (check, ()) for name, check in formats.items()}}
    validator = jsonschema.Draft4Validator(schema, format_checker=checker)
    error = next(iter(validator.iter_errors(body)), None)
    if error is None:
        return
    if error.path:
        detail = (f'Invalid input for field/attribute {error.path[-1]}. '
                  f'Value: {error.instance}. {error.message}')
    else:
        detail = error.message
    raise exception.ValidationError(detail=detail)
