"""What drivers share to describe manageable backend objects (cinderlike-volume process):
Cinder's entry shape, its size rounding and its sort-and-page rule (paginate_entries_list).
"""

import functools
import json
import math

from cinderlike import exception

GiB = 1024 ** 3


def size_gb(size_bytes: int) -> int:
    """Cinder's rule for a managed object's size: GiB rounded up."""
    return int(math.ceil(size_bytes / GiB))


def entry(name: str, size: int, *, cinder_id: str | None = None,
          reason_not_safe: str | None = None, source: str | None = None,
          snapshot: bool = False) -> dict:
    """One manageable volume (or, with *snapshot*, snapshot) as the API shows it."""
    described = {'reference': {'source-name': name}, 'size': size,
                 'safe_to_manage': cinder_id is None and reason_not_safe is None,
                 'reason_not_safe': 'already managed' if cinder_id else reason_not_safe,
                 'cinder_id': cinder_id, 'extra_info': None}
    if snapshot:
        described['source_reference'] = {'source-name': source} if source else None
    return described


def _key(value):
    # NOTE(cinder): a dict (a reference) sorts by its smallest value, as Cinder compares.
    return sorted(value.values())[0] if isinstance(value, dict) else value


def paginate(entries: list[dict], *, marker, limit: int | None, offset: int | None,
             sort_keys: list[str], sort_dirs: list[str]) -> list[dict]:
    """Sort *entries* by *sort_keys*/*sort_dirs*, then page: after the entry whose reference
    is *marker* (a dict or its JSON), skip *offset*, keep *limit*.

    :raises InvalidInput: a marker that is not JSON.
    """
    def compare(left, right) -> int:
        for key, direction in zip(sort_keys, sort_dirs, strict=True):
            a, b = _key(left[key.strip()]), _key(right[key.strip()])
            if a == b:
                continue
            less = a < b if direction == 'asc' else a > b
            return -1 if less else 1
        return 0

    ordered = sorted(entries, key=functools.cmp_to_key(compare))
    start = 0
    if marker:
        if not isinstance(marker, dict):
            try:
                marker = json.loads(marker)
            except ValueError:
                raise exception.InvalidInput(
                    reason=f'marker {marker} can not be analysed, please use json like '
                           'format') from None
        start = next((i + 1 for i, item in enumerate(ordered)
                      if item['reference'] == marker), None)
        if start is None:
            raise exception.InvalidInput(reason=f'marker not found: {marker}')
    start += offset or 0
    return ordered[start:start + limit] if limit is not None else ordered[start:]
