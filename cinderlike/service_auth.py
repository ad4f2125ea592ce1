"""Service tokens (Cinder's service_auth.py): with `[service_user] send_service_user_token`,
a request made for a user also carries the service's own token (X-Service-Token), so the
other service accepts a user token that expires while the work is under way."""

from keystoneauth1 import loading as ks_loading

from cinderlike import conf as cl_conf
from cinderlike import exception
from cinderlike.conf import service_user as service_user_conf


class ServiceToken:
    """The [service_user] credentials' token; the plugin and its session load on first use
    and keystoneauth1 fetches a new token when the one it holds is about to expire."""

    def __init__(self, conf):
        cl_conf.register_on_demand(conf, service_user_conf)
        self._conf = conf
        self._session = None

    def get(self) -> str | None:
        """The token, None unless send_service_user_token.

        :raises ServiceUserTokenNoAuth: [service_user] names no auth plugin.
        """
        conf = self._conf
        if not conf[service_user_conf.GROUP].send_service_user_token:
            return None
        if self._session is None:
            auth = ks_loading.load_auth_from_conf_options(conf, service_user_conf.GROUP)
            if auth is None:
                raise exception.ServiceUserTokenNoAuth()
            self._session = ks_loading.load_session_from_conf_options(
                conf, service_user_conf.GROUP, auth=auth)
        return self._session.get_token()
