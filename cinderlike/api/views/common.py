"""cinderlike-api: what every view shares — Cinder's timestamp text and resource links."""

import dataclasses
import datetime
import urllib.parse


def timestamp(value: datetime.datetime | None, *, missing=None):
    """*value* as Cinder prints it (`%Y-%m-%dT%H:%M:%S.%f`: microseconds, no zone); *missing*
    when there is none (None, or '' in the views that print an empty string)."""
    if not value:
        return missing
    # NOTE(speed): isoformat is a third of strftime's cost (two per volume in a listing);
    # the database's datetimes are naive, an aware one is printed without its zone.
    if value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return value.isoformat(timespec='microseconds')


def base_url(conf, req) -> str:
    """Where links point: the operator's `public_endpoint`, else the request's own."""
    return (conf.public_endpoint or req.prefix).rstrip('/')


@dataclasses.dataclass(frozen=True)
class Links:
    """Where links point: `<base>/v3/<project>/...` (self) and `<base>/<project>/...`."""

    base: str
    project_id: str

    @classmethod
    def of(cls, conf, req) -> 'Links':
        """Links of *req*'s project, on `public_endpoint` when the operator set one."""
        return cls(base=base_url(conf, req), project_id=req.context.ctx.project_id)

    def item(self, item_id: str, collection: str = 'volumes') -> list[dict]:
        return [
            {'rel': 'self', 'href': f'{self.base}/v3/{self.project_id}/{collection}/{item_id}'},
            {'rel': 'bookmark', 'href': f'{self.base}/{self.project_id}/{collection}/{item_id}'},
        ]

    def next(self, collection: str, params: dict, marker: str) -> str:
        query = urllib.parse.urlencode(dict(params, marker=marker), doseq=True)
        return f'{self.base}/v3/{self.project_id}/{collection}?{query}'

    def page_after(self, collection: str, params: dict, rows: list, *, limit: int,
                   count: int | None = None) -> str | None:
        """The next link of a listing page, or None, by Cinder's rule for every collection
        (api/common.py `_get_collection_links`): a link whenever the page is not empty and
        the limit does not exceed the total count (this page's length without one)."""
        if rows and limit <= (count or len(rows)):
            return self.next(collection, params, rows[-1].id)
        return None
