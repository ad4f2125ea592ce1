"""cinderlike-api: one page of snapshots or backups, GET /<resource> and /<resource>/detail.

Cinder's snapshot and backup controllers parse a listing in the same order (sort,
pagination, `with_count` from 3.45, then the resource's filters) and answer with the same
shape; the volumes listing parses pagination first and renders its own way
(api/resources/volumes.py).
"""

import dataclasses
import types
from collections.abc import Callable, Iterator

import falcon

from cinderlike.api import listing
from cinderlike.api import microversions as mv


@dataclasses.dataclass(frozen=True)
class Collection:
    """What a snapshot or backup listing is made of.

    *filters*: (ctx, params, version) → (project scope, filters), the resource's rules.
    *name_sort*: the microversion from which `sort=name` sorts by display_name.
    *store*: the resource's db module, with its get_all and count (db/listing.Listing).
    *views*: (req, rows, detail, session) → the rows' views, made as they are taken.
    *links*: req → the Links of the next page.
    """

    conf: object
    db: object
    enforcer: object
    name: str
    policy: str
    filters: Callable
    name_sort: str
    store: types.ModuleType
    views: Callable[..., Iterator[dict]]
    links: Callable

    def page(self, req: falcon.Request, *, detail: bool) -> dict:
        """{"<name>": [...], "<name>_links": [next], "count": N (with_count)}.

        :raises Invalid, InvalidInput, InvalidParameterValue, the resource's NotFound (marker):
        """
        ctx, version = req.context.ctx, req.context.api_version
        db = self.db
        self.enforcer.authorize(ctx, self.policy)
        params = dict(req.params)
        sort = listing.sort(params)
        marker, limit, offset = listing.pagination(params,
                                                   max_limit=self.conf.osapi_max_limit)
        with_count = False
        if version.matches(mv.SUPPORT_COUNT_INFO) and 'with_count' in params:
            with_count = listing.bool_param(params, 'with_count')
            params.pop('with_count')
        project, filters = self.filters(ctx, params, version)
        aliases = {'name': 'display_name'} if version.matches(self.name_sort) else None
        # NOTE(session): the page, its metadata and the count in one read transaction.
        with db.reader() as s:
            rows = self.store.get_all(db, project_id=project, filters=filters, marker=marker,
                                      limit=limit, offset=offset, sort=sort,
                                      sort_aliases=aliases, session=s)
            count = (self.store.count(db, project_id=project, filters=filters, session=s)
                     if with_count else None)
            items = self.views(req, rows, detail, s)
        next_href = self.links(req).page_after(
            f'{self.name}/detail' if detail else self.name, dict(req.params), rows,
            limit=limit, count=count)
        shown: dict = {self.name: items}
        if next_href:
            shown[f'{self.name}_links'] = [{'rel': 'next', 'href': next_href}]
        if count is not None:
            shown['count'] = count
        return shown
