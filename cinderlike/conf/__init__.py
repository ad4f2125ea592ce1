"""Option registration: every option group in one place, onto a ConfigOpts passed in."""

from oslo_config import cfg
from oslo_log import log as logging

from cinderlike.conf import (
    api,
    audit,
    backup,
    cleanup,
    connector,
    coordination,
    database,
    default,
    healthcheck,
    key_manager,
    messages,
    metrics,
    nova,
    quota,
    rpc,
    scheduler,
    scheduler_filters,
    service_user,
    transfers,
    volume,
)

_MODULES = (default, api, database, coordination, rpc, volume, backup, audit, scheduler_filters,
            quota, messages, scheduler, cleanup, transfers, nova, connector, healthcheck,
            metrics, key_manager, service_user)


def register_all(conf: cfg.ConfigOpts) -> cfg.ConfigOpts:
    """Register every cinderlike option group on *conf* and return it."""
    for module in _MODULES:
        module.register_opts(conf)
    return conf


def new_conf() -> cfg.ConfigOpts:
    """A fresh ConfigOpts with all options and oslo.log's registered (tests, cmd/)."""
    conf = register_all(cfg.ConfigOpts())
    logging.register_options(conf)
    return conf


def parse(argv, *, project='cinderlike', default_config_files=None) -> cfg.ConfigOpts:
    """Build the process's ConfigOpts from the command line; cmd/ calls this once."""
    conf = new_conf()
    conf(argv, project=project, default_config_files=default_config_files)
    return conf
