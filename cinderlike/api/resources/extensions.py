"""cinderlike-api: GET /extensions and GET /extensions/{alias} — Cinder's extension list.

Any authenticated caller may read them: Cinder's ExtensionsResource checks no policy.
"""

import falcon

from cinderlike.api.views import extensions as view


class Extensions:
    """GET /extensions."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = view.index()


class Extension:
    """GET /extensions/{alias}: 404 for an alias Cinder does not load."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, alias: str) -> None:
        found = view.BY_ALIAS.get(alias)
        if found is None:
            raise falcon.HTTPNotFound()
        resp.media = view.show(found)
