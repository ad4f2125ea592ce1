"""conf/healthcheck.py: oslo.middleware's [healthcheck] options, declared as it declares them."""

import pytest
from oslo_config import cfg
from oslo_middleware.healthcheck import opts as oslo_opts

from cinderlike.conf import healthcheck

PAIRS = [(healthcheck.HEALTHCHECK_OPTS, oslo_opts.HEALTHCHECK_OPTS),
         (healthcheck.DISABLE_BY_FILE_OPTS, oslo_opts.DISABLE_BY_FILE_OPTS),
         (healthcheck.DISABLE_BY_FILES_OPTS, oslo_opts.DISABLE_BY_FILES_OPTS),
         (healthcheck.ENABLE_BY_FILES_OPTS, oslo_opts.ENABLE_BY_FILES_OPTS)]


@pytest.mark.parametrize('ours, theirs', PAIRS)
def test_each_option_equals_oslo_middleware_s(ours, theirs):
    assert [vars(opt) for opt in ours] == [vars(opt) for opt in theirs]


def test_oslo_middleware_s_plugins_may_register_their_copies_again():
    """What a third-party plugin built on oslo.middleware's does at load time."""
    conf = cfg.ConfigOpts()
    healthcheck.register_opts(conf)
    for _ours, theirs in PAIRS:
        conf.register_opts(theirs, group='healthcheck')
    conf([])
    assert (conf.healthcheck.backends, conf.healthcheck.check_timeout) == ([], 3.0)


def test_the_sample_config_lists_every_option():
    [(group, opts)] = healthcheck.list_opts()
    assert group == 'healthcheck'
    assert [opt.name for opt in opts] == [
        'check_timeout', 'detailed', 'backends', 'allowed_source_ranges',
        'ignore_proxied_requests', 'disable_by_file_path', 'disable_by_file_paths',
        'enable_by_file_paths']
