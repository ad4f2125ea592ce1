"""cinderlike-api: GET /openapi.json, the OpenAPI 3.1 document of the served routes.

Outside /v3, as the version document, so no token is needed to read it.
"""

import functools

import falcon

from cinderlike.api import openapi


class OpenAPI:
    """The document of *routes* (the app's route table), built on first use."""

    def __init__(self, routes: list):
        self._routes = routes

    @functools.cached_property
    def _document(self) -> dict:
        return openapi.document(self._routes)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._document
