"""[key_manager] options: Cinder's (castellan's `backend`, Cinder's `fixed_key`)."""

from oslo_config import cfg

GROUP = 'key_manager'

OPTS = [
    # NOTE(backend): castellan defaults to "barbican"; cinderlike has no Barbican or Vault
    # client, so the default is unset and only the fixed-key manager is served.
    cfg.StrOpt('backend', deprecated_name='api_class',
               help='Specify the key manager implementation. cinderlike serves Cinder\'s '
                    'fixed-key manager, "cinder.keymgr.conf_key_mgr.ConfKeyManager" (also '
                    'spelt "cinderlike.key_manager.ConfKeyManager"), which hands out the one '
                    'key of fixed_key. Unset (the default), or any other backend, creating a '
                    'volume of an encrypted volume type answers "Key manager error".'),
    cfg.StrOpt('fixed_key', secret=True, deprecated_group='keymgr',
               help='Fixed key returned by key manager, specified in hex'),
]


def register_opts(conf):
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return [(GROUP, OPTS)]
