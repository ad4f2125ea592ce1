"""cinderlike-api: every request's id, as oslo.middleware's RequestId gives it (Cinder's
api-paste `request_id` filter): `req-<uuid>` in the environ for the request context, a
caller's valid `X-OpenStack-Request-ID` as the global request id, and the id in each answer's
`x-openstack-request-id` header.

NOTE(webob): oslo.middleware's filter wraps every request and response in webob objects; this
one only reads the environ and adds a header to the status line's headers.
"""

import re

from oslo_context import context

ENV_REQUEST_ID = 'openstack.request_id'
ENV_GLOBAL_REQUEST_ID = 'openstack.global_request_id'
RESPONSE_HEADER = 'x-openstack-request-id'
# The caller's X-OpenStack-Request-ID, as WSGI names it.
INBOUND = 'HTTP_X_OPENSTACK_REQUEST_ID'
# oslo.middleware's ID_FORMAT, matched as it matches it (re.match).
ID_FORMAT = re.compile(
    r'^req-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$')


def request_ids(app):
    """WSGI filter: the request's id (and a caller's global one) in the environ, the id in
    the answer's headers unless the answer names one already."""
    def call(env, start_response):
        if ID_FORMAT.match(env.get(INBOUND, '')):
            env[ENV_GLOBAL_REQUEST_ID] = env[INBOUND]
        request_id = env[ENV_REQUEST_ID] = context.generate_request_id()

        def start(status, headers, exc_info=None):
            if not any(name.lower() == RESPONSE_HEADER for name, _ in headers):
                headers = [*headers, (RESPONSE_HEADER, request_id)]
            return start_response(status, headers, exc_info)
        return app(env, start)
    return call
