"""cinderlike-api: GET / (300, every version) and GET /v3/ (200, this version)."""

import falcon

from cinderlike.api.views import versions as view


class Versions:
    """The version document; links use `public_endpoint` when set, as Cinder."""

    def __init__(self, conf):
        self._conf = conf

    def _base_url(self, req: falcon.Request, app_path: str) -> str:
        return self._conf.public_endpoint or req.prefix + app_path

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.status = falcon.HTTP_300
        resp.media = view.build(self._base_url(req, ''))

    def on_get_v3(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = view.build(self._base_url(req, '/v3'))
