"""cinderlike-api's gunicorn settings come from the [DEFAULT] API options."""

import os
import pathlib
import subprocess
import sys

from cinderlike import conf as cl_conf
from cinderlike.cmd import api

ROOT = pathlib.Path(__file__).resolve().parents[3]


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


def test_the_database_driver_is_imported_before_the_workers_fork(tmp_path):
    """main() imports `[database] connection`'s driver in the master, connecting to nothing
    (the port below has no server); each worker makes its own engine."""
    config = tmp_path / 'cinderlike.conf'
    config.write_text('[database]\nconnection = postgresql+psycopg2://u@127.0.0.1:9/none\n'
                      '[DEFAULT]\nauth_strategy = noauth\n')
    probe = (
        'import sys\n'
        'from unittest import mock\n'
        'from cinderlike.cmd import api\n'
        'seen = []\n'
        'with mock.patch.object(api.APIServer, "run", lambda server: seen.append(\n'
        '        "psycopg2" in sys.modules)):\n'
        f'    api.main(["--config-file", "{config}"])\n'
        'print(seen)\n')
    out = subprocess.run([sys.executable, '-c', probe], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.splitlines()[-1] == '[True]'
