"""cinderlike-api: the query parameters every listing shares (Cinder's api/common.py).

limit/marker/offset, `sort=key:dir,...` or the legacy sort_key/sort_dir, and the check of
non-admin filters against the resource's allowed keys.
"""

from oslo_utils import strutils

from cinderlike import exception

_LEGACY_SORT = ('sort_key', 'sort_dir')
DB_MAX_INT = 0x7FFFFFFF


def pagination(params: dict, *, max_limit: int) -> tuple[str | None, int, int | None]:
    """(marker, limit, offset) popped from *params*; limit is capped at *max_limit*.

    :raises Invalid: "limit param must be an integer/positive", bad offset.
    """
    marker = params.pop('marker', None)
    limit = max_limit
    if 'limit' in params:
        try:
            limit = int(params.pop('limit'))
        except (TypeError, ValueError):
            raise exception.Invalid('limit param must be an integer') from None
        if limit < 0:
            raise exception.Invalid('limit param must be positive')
        limit = min(limit, max_limit)
    offset = None
    if 'offset' in params:
        raw = params.pop('offset')
        try:
            offset = int(raw)
        except (TypeError, ValueError):
            raise exception.InvalidInput(reason='offset must be an integer.') from None
        if not 0 <= offset <= DB_MAX_INT:
            raise exception.InvalidInput(
                reason=f'offset must be >= 0 and <= {DB_MAX_INT}.')
    return marker, limit, offset


def sort(params: dict) -> list[tuple[str, str | None]] | None:
    """[(key, direction or None)] from `sort` or sort_key/sort_dir; None for the default.

    :raises Invalid: when both styles are mixed.
    """
    if 'sort' in params:
        if any(k in params for k in _LEGACY_SORT):
            raise exception.Invalid("The 'sort_key' and 'sort_dir' parameters are deprecated "
                                    "and cannot be used with the 'sort' parameter.")
        pairs = []
        for item in params.pop('sort').split(','):
            key, _sep, direction = item.strip().partition(':')
            pairs.append((key.strip(), direction.strip().lower() or None))
        return pairs
    if 'sort_key' in params or 'sort_dir' in params:
        key = params.pop('sort_key', 'created_at')
        direction = params.pop('sort_dir', 'desc')
        return [(key.strip(), direction.strip().lower())]
    return None


def reject_invalid_filters(ctx, filters: dict, allowed: tuple[str, ...], *,
                           like: bool, admin_exempt: bool = True) -> None:
    """Non-admins may filter only on *allowed* keys (`key~` too when *like*); 400 otherwise.

    `all_tenants` is dropped silently: python-cinderclient always sends it. With
    *admin_exempt* False admins are held to *allowed* too (Cinder's rule for pools).
    """
    for key in filters:
        if not key.isascii():
            raise exception.Invalid('Filter keys can only contain ASCII characters.')
    if ctx.is_admin and admin_exempt:
        return
    invalid = [key for key in filters
               if not (key in allowed or (like and key.endswith('~') and key[:-1] in allowed))]
    if 'all_tenants' in invalid:
        invalid.remove('all_tenants')
        filters.pop('all_tenants')
    if invalid:
        raise exception.Invalid(
            f"Invalid filters {','.join(invalid)} are found in query options.")


def bool_param(params: dict, name: str) -> bool:
    """Cinder's get_bool_param: *name* of *params* as a boolean, False when absent.

    :raises InvalidParameterValue: for a value that is not a boolean string.
    """
    value = params.get(name, 'false')
    if not strutils.is_valid_boolstr(value):
        raise exception.InvalidParameterValue(
            err=f"Value '{value}' for '{name}' is not a boolean.")
    return strutils.bool_from_string(value, strict=True)
