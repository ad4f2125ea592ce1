"""[nova] options: how the volume service reaches Nova's compute API (Cinder's names).

Cinder's own three, then keystoneauth1's session options (cafile, insecure, timeout ...) and
its common auth options (auth_type, auth_section); an auth plugin's options (auth_url,
endpoint ...) are registered by keystoneauth1 when the plugin named by auth_type loads.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = 'nova'

OPTS = [
    cfg.StrOpt('region_name',
               help='Name of nova region to use. Useful if keystone manages more than one '
                    'region.'),
    cfg.StrOpt('interface', default='public', choices=['public', 'admin', 'internal'],
               help='Type of the nova endpoint to use. This endpoint will be looked up in '
                    'the keystone catalog and should be one of public, internal or admin.'),
    cfg.StrOpt('token_auth_url',
               help="The authentication URL for the nova connection when using the current "
                    "user's token"),
]

SESSION_OPTS = ks_loading.get_session_conf_options()
AUTH_OPTS = ks_loading.get_auth_common_conf_options()


def register_opts(conf):
    conf.register_opts(OPTS, group=GROUP)
    conf.register_opts(SESSION_OPTS, group=GROUP)
    conf.register_opts(AUTH_OPTS, group=GROUP)


def list_opts():
    return [(GROUP, OPTS + SESSION_OPTS + AUTH_OPTS)]
