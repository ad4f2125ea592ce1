"""Option registration: every option group in one place, onto a ConfigOpts passed in."""

import importlib
import threading

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
    key_manager,
    messages,
    metrics,
    quota,
    rpc,
    scheduler,
    scheduler_filters,
    transfers,
    volume,
)

_MODULES = (default, api, database, coordination, rpc, volume, backup, audit, scheduler_filters,
            quota, messages, scheduler, cleanup, transfers, connector, metrics, key_manager)

# NOTE(rss): [nova] and [service_user] take their options from keystoneauth1's loading
# (requests), MBs in a daemon that never reads them; [healthcheck] is read by the API alone (its
# options came from oslo.middleware, with webob and jinja2, until they were declared here). A
# daemon's conf (parse) leaves them out; the code that reads one registers it first
# (register_on_demand). register_all has every group.
_ON_DEMAND = ('healthcheck', 'nova', 'service_user')
_ON_DEMAND_LOCK = threading.Lock()


def modules() -> tuple:
    """Every option module, those registered on demand last (the sample config lists all)."""
    return _MODULES + tuple(importlib.import_module(f'{__name__}.{name}')
                            for name in _ON_DEMAND)


def register_on_demand(conf: cfg.ConfigOpts, module):
    """*module*'s option group on *conf*, registered unless it is already; the group."""
    with _ON_DEMAND_LOCK:
        module.register_opts(conf)
    return conf[module.GROUP]


def register_all(conf: cfg.ConfigOpts) -> cfg.ConfigOpts:
    """Register every cinderlike option group on *conf* and return it."""
    for module in modules():
        module.register_opts(conf)
    return conf


def new_conf() -> cfg.ConfigOpts:
    """A fresh ConfigOpts with all options and oslo.log's registered (tests, cmd/)."""
    conf = register_all(cfg.ConfigOpts())
    logging.register_options(conf)
    return conf


def parse(argv, *, project='cinderlike', default_config_files=None) -> cfg.ConfigOpts:
    """Build a daemon's ConfigOpts from the command line, the groups it reads on demand left
    out (NOTE(rss)); cmd/ calls this once."""
    conf = cfg.ConfigOpts()
    for module in _MODULES:
        module.register_opts(conf)
    logging.register_options(conf)
    conf(argv, project=project, default_config_files=default_config_files)
    return conf
