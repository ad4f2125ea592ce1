"""[healthcheck] options of cinderlike-api's /healthcheck: oslo.middleware's, declared here
as it declares them, and the timeout of cinderlike's reachability checks.

NOTE(identical): a third-party healthcheck plugin built on oslo.middleware registers
oslo.middleware's own copies of these options again; oslo.config accepts that only from
options equal to the registered ones (same name, type, default and help), which
tests/unit/conf/test_healthcheck.py holds these to.
"""

from oslo_config import cfg

GROUP = 'healthcheck'

OPTS = [
    cfg.FloatOpt('check_timeout', default=3.0, min=0.1,
                 help='Seconds each reachability check (database, message broker) of '
                      '/healthcheck may take before it counts as unreachable.'),
]

# oslo.middleware's HEALTHCHECK_OPTS: the healthcheck app's own.
HEALTHCHECK_OPTS = [
    cfg.BoolOpt('detailed', default=False,
                help='Show more detailed information as part of the response. Security '
                     'note: Enabling this option may expose sensitive details about the '
                     'service being monitored. Be sure to verify that it will not violate '
                     'your security policies.'),
    cfg.ListOpt('backends', default=[],
                help='Additional backends that can perform health checks and report that '
                     'information back as part of a request.'),
    cfg.ListOpt('allowed_source_ranges', default=[],
                help='A list of network addresses to limit source ip allowed to access '
                     'healthcheck information. Any request from ip outside of these network '
                     'addresses are ignored.'),
    cfg.BoolOpt('ignore_proxied_requests', default=False,
                help='Ignore requests with proxy headers.'),
]

# The options of oslo.middleware's three plugins, one list each as it keeps them.
DISABLE_BY_FILE_OPTS = [
    cfg.StrOpt('disable_by_file_path', default=None,
               help='Check the presence of a file to determine if an application is running '
                    'on a port. Used by DisableByFileHealthcheck plugin.'),
]
DISABLE_BY_FILES_OPTS = [
    cfg.ListOpt('disable_by_file_paths', default=[],
                help='Check the presence of a file based on a port to determine if an '
                     'application is running on a port. Expects a "port:path" list of '
                     'strings. Used by DisableByFilesPortsHealthcheck plugin.'),
]
ENABLE_BY_FILES_OPTS = [
    cfg.ListOpt('enable_by_file_paths', default=[],
                help='Check the presence of files. Used by EnableByFilesHealthcheck plugin.'),
]

ALL_OPTS = (OPTS + HEALTHCHECK_OPTS + DISABLE_BY_FILE_OPTS + DISABLE_BY_FILES_OPTS
            + ENABLE_BY_FILES_OPTS)


def register_opts(conf):
    conf.register_opts(ALL_OPTS, group=GROUP)


def list_opts():
    return [(GROUP, ALL_OPTS)]
