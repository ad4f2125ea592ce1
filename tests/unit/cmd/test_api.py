"""cinderlike-api's gunicorn settings come from the [DEFAULT] API options."""

import os

from cinderlike import conf as cl_conf
from cinderlike.cmd import api


def _settings(**overrides):
    conf = cl_conf.new_conf()
    conf([])
    for name, value in overrides.items():
        conf.set_override(name, value)
    return api.APIServer(conf).cfg


def test_bind_workers_and_threads_from_options():
    cfg = _settings(osapi_volume_listen='127.0.0.1', osapi_volume_listen_port=9876,
                    osapi_volume_workers=3, wsgi_default_pool_size=7)
    assert cfg.bind == ['127.0.0.1:9876']
    assert (cfg.workers, cfg.worker_class_str, cfg.threads) == (3, 'gthread', 7)


def test_keep_alive_follows_cinders_options():
    assert _settings().keepalive == 900
    assert _settings(client_socket_timeout=30).keepalive == 30
    assert _settings(wsgi_keep_alive=False).keepalive == 0


def test_workers_default_to_cpu_count_and_ipv6_is_bracketed():
    cfg = _settings(osapi_volume_listen='::1')
    assert cfg.bind == ['[::1]:8776']
    assert cfg.workers == (os.cpu_count() or 1)
