"""cinderlike-api: request-body parsing and JSON-schema validation, with Cinder's messages."""

import json

import falcon
import jsonschema
from oslo_utils import strutils, uuidutils

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


# Cinder's SUPPORTED_CONTENT_TYPES: the media types a request body may have.
JSON_TYPES = ('application/json', 'application/vnd.openstack.volume+json')
# Methods whose Cinder controllers take no body: one sent is a TypeError there, a 400.
_BODYLESS = ('GET', 'HEAD', 'DELETE')
DECODE_ERROR = ('Error decoding your request. Either the URL or the request body contained '
                'characters that could not be decoded by Cinder.')


def _read_raw(req: falcon.Request, limit: int) -> bytes:
    """The body's bytes: Content-Length of them, or a chunked body up to *limit* + 1.

    :raises Invalid: fewer bytes than Content-Length (the client gave up); RequestTooLarge.
    """
    length = req.content_length
    if length is None:
        if 'chunked' not in (req.get_header('Transfer-Encoding') or '').lower():
            return b''
        # NOTE(chunked): only a server that ends wsgi.input itself (gunicorn) can be read
        # without a length; wsgiref would block until the client closes.
        if not req.env.get('wsgi.input_terminated'):
            raise falcon.HTTPLengthRequired()
        raw = req.stream.read(limit + 1)
    else:
        raw = req.stream.read(length)
        if len(raw) < length:
            raise exception.Invalid('The request body is shorter than its Content-Length.')
    if len(raw) > limit:
        raise exception.RequestTooLarge()
    return raw


def _decode(raw: bytes):
    """JSON of UTF-8 *raw* (no BOM, as Cinder's jsonutils), every string encodable."""
    try:
        body = json.loads(raw.decode('utf-8'))
    except (ValueError, RecursionError):
        raise exception.Invalid('Malformed request body') from None
    try:
        # NOTE(surrogates): a lone "\ud800" escape decodes to a str no database, log or
        # RPC message can encode; json.dumps walks every string in C.
        json.dumps(body, ensure_ascii=False).encode('utf-8')
    except UnicodeEncodeError:
        raise exception.Invalid(DECODE_ERROR) from None
    except RecursionError:
        raise exception.Invalid('Malformed request body') from None
    return body


# What read_body answers for a request without a body (JSON `null` is a body).
ABSENT = object()


def read_body(req: falcon.Request, *, limit: int):
    """The request's JSON body as Cinder's wsgi.Resource takes it; ABSENT when there is none.

    NOTE(content_type): a body without a Content-Type header is read as JSON (Cinder
    ignores it, and its handler then fails on the missing body).

    :raises HTTPUnsupportedMediaType: a body that is not JSON by its Content-Type;
        Invalid: malformed, undecodable or short; HTTPBadRequest: a body on GET or DELETE;
        RequestTooLarge: past `osapi_max_request_body_size`.
    """
    raw = _read_raw(req, limit)
    if not raw:
        return ABSENT
    media = (req.content_type or JSON_TYPES[0]).partition(';')[0].strip().lower()
    if media not in JSON_TYPES:
        raise falcon.HTTPUnsupportedMediaType(description='Unsupported Content-Type')
    body = _decode(raw)
    if req.method in _BODYLESS:
        raise falcon.HTTPBadRequest()
    return body


def _digits_maximum(validator, limit, instance, schema):
    """`maximum` for digit strings too.

    NOTE(digits): python-cinderclient sends sizes as strings and `pattern` admits any run
    of digits; JSON Schema bounds look at numbers only, so "99999999999" passed through
    to the quota check (a 413). The minimum stays Cinder's: the create flow's message.
    """
    if isinstance(instance, str) and instance.isascii() and instance.isdigit():
        if int(instance) > limit:
            yield jsonschema.ValidationError(f'{instance} is greater than the maximum of {limit}')
        return
    yield from jsonschema.Draft4Validator.VALIDATORS['maximum'](validator, limit, instance,
                                                                schema)


_Validator = jsonschema.validators.extend(jsonschema.Draft4Validator,
                                          {'maximum': _digits_maximum})


def check_length(value: str, name: str) -> None:
    """:raises InvalidInput: for a name outside 1-255 characters (Cinder's wording)."""
    try:
        strutils.check_string_length(value, name, min_length=1, max_length=255)
    except (TypeError, ValueError) as error:
        raise exception.InvalidInput(reason=str(error)) from None


def load_body(req: falcon.Request):
    """The body middleware.RequestBody read for this request (None when there is none)."""
    body = req.context.body
    return None if body is ABSENT else body


def action_name(req: falcon.Request) -> str | None:
    """The one key of the request's action body, with Cinder's action_peek answers.

    :raises HTTPNotFound: a body that is no object, `null` included (Cinder's
        AttributeError/TypeError); Invalid: not exactly one key.
    """
    body = req.context.body
    if body is ABSENT:
        return None  # Cinder peeks with no media type: "no such action: None"
    if not isinstance(body, dict):
        if not isinstance(body, (list, str)) or len(body) == 1:
            raise falcon.HTTPNotFound()
        raise exception.Invalid('Malformed request body')
    if len(body) != 1:
        raise exception.Invalid('Malformed request body')
    return next(iter(body))


def cluster_host(api_version, body: dict, cluster_version: str) -> tuple[str | None, str | None]:
    """Cinder's common.get_cluster_host: exactly one of `cluster` (from *cluster_version*)
    and `host`; (cluster, host).

    :raises InvalidInput:
    """
    if api_version.matches(cluster_version):
        cluster, message = body.get('cluster'), 'One and only one of cluster and host must be set.'
    else:
        cluster, message = None, 'Host field is missing.'
    host = body.get('host')
    if bool(cluster) == bool(host):
        raise exception.InvalidInput(reason=message)
    return cluster, host


def no_such_action(name) -> exception.Invalid:
    """Cinder's 400 for an action body whose key names no action of the resource."""
    return exception.Invalid(f'There is no such action: {name}. Verify the request body and '
                             'Content-Type header and try again.')


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
    validator = _Validator(schema, format_checker=checker)
    try:
        error = next(iter(validator.iter_errors(body)), None)
    except RecursionError:
        raise exception.Invalid('Malformed request body') from None
    if error is None:
        return
    if error.path:
        detail = (f'Invalid input for field/attribute {error.path[-1]}. '
                  f'Value: {error.instance}. {error.message}')
    else:
        detail = error.message
    raise exception.ValidationError(detail=detail)
