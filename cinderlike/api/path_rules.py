"""cinderlike-api: what Cinder's routes mapper answers before any controller sees a request.

Cinder's v3 router redirects `/v3` to `/v3/` (its version document) and matches no other
path that ends in '/': `GET /v3/{project_id}/volumes/` is a 404, not the volume list.
"""

import falcon

# The two version documents, the only paths Cinder serves with a trailing '/'.
_SLASHED = ('/', '/v3/')
# NOTE(methods): Cinder's mapper matches the method as part of the route, so a method no
# route takes is a 404: OPTIONS (falcon would answer one) and any method falcon does not
# know (`FOO`, `get`: falcon's 400 'Invalid HTTP method').
_ROUTED = frozenset(falcon.COMBINED_METHODS) - {'OPTIONS'}


class PathRules:
    """falcon middleware, after authentication and before microversion negotiation.

    That is where Cinder's mapper sits: behind auth_token (a bad token is still a 401) and in
    front of the controllers that read OpenStack-API-Version (a bad header here is no 400).
    """

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        if req.path == '/v3':
            # NOTE(redirect): routes' `mapper.redirect("", "/")` answers every method with
            # an empty 302 to the script path plus '/v3/', which webob's response (Cinder's
            # request-id filter) makes absolute: the request's scheme, host and script path.
            resp.status = falcon.HTTP_302
            resp.location = req.prefix + '/v3/'
            resp.content_type = 'text/plain; charset=utf8'
            resp.complete = True
        elif (req.path.endswith('/') and req.path not in _SLASHED) or req.method not in _ROUTED:
            raise falcon.HTTPNotFound()
