"""[service_user] options: the service's own Keystone credentials, whose token is sent as
X-Service-Token beside a user's token (Cinder's service_auth.py names).

Cinder's send_service_user_token, then keystoneauth1's session and common auth options; the
auth plugin's own options (auth_url, username ...) are registered by keystoneauth1 when the
plugin named by auth_type loads.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = 'service_user'

OPTS = [
    cfg.BoolOpt('send_service_user_token', default=False,
                help='When True, if sending a user token to an REST API, also send a '
                     'service token.'),
]

SESSION_OPTS = ks_loading.get_session_conf_options()
AUTH_OPTS = ks_loading.get_auth_common_conf_options()


def register_opts(conf):
    conf.register_opts(OPTS, group=GROUP)
    conf.register_opts(SESSION_OPTS, group=GROUP)
    conf.register_opts(AUTH_OPTS, group=GROUP)


def list_opts():
    return [(GROUP, OPTS + SESSION_OPTS + AUTH_OPTS)]
