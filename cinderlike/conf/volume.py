"""Per-backend options of cinderlike-volume: registered into each backend's own section.

As in Cinder, `[<backend>]` holds a backend's options and `[backend_defaults]` supplies every
value the backend section does not set.
"""

from oslo_config import cfg

from cinderlike.drivers.volume import fake, file

GROUP = 'backend_defaults'

BACKEND_OPTS = [
    cfg.StrOpt('volume_driver',
               help='Driver of this backend: a cinderlike driver class path, or an alias '
                    '(`fake`: the in-memory driver; `file`: image files through qemu-img).'),
    cfg.StrOpt('volume_backend_name',
               help='Name reported to the scheduler; volume types select backends by it.'),
    cfg.StrOpt('backend_host',
               help='Host name used instead of [DEFAULT] host in `host@backend`.'),
    cfg.StrOpt('backend_availability_zone',
               help='Availability zone of this backend; [DEFAULT] storage_availability_zone '
                    'when unset.'),
    cfg.IntOpt('backend_stats_polling_interval', default=60, min=3,
               help='Seconds between capability reports to the schedulers.'),
    cfg.IntOpt('reinit_driver_count', default=3, min=0,
               help='Times to retry driver initialisation, waiting 1, 2, 4, ... seconds '
                    'between attempts, before the backend gives up and shows down.'),
    cfg.IntOpt('reserved_percentage', default=0, min=0, max=100,
               help='Share of the backend capacity kept free from scheduling.'),
    cfg.StrOpt('max_over_subscription_ratio', default='20.0', regex=r'^(auto|\d*\.\d+|\d+)$',
               help="Ratio of provisioned to total capacity allowed with thin provisioning, "
                    "or 'auto'."),
    # NOTE(cinder): Cinder's driver option and default (a temporary clone).
    cfg.BoolOpt('backup_use_temp_snapshot', default=False,
                help='If this is set to True, a temporary snapshot will be created for '
                     'performing non-disruptive backups. Otherwise a temporary volume will '
                     'be cloned in order to perform a backup.'),
]


class BackendConfiguration:
    """Reads `[<section>]` options, falling back to `[backend_defaults]` for unset ones.

    This is what drivers and the volume manager receive as their `configuration`.
    """

    def __init__(self, conf, section):
        self._conf = conf
        self.config_group = section
        # NOTE(perf): which section answers an option is kept in oslo.config's own cache of
        # option values: get_location() walks every source (overrides, files, environment,
        # defaults), 10.7 us a read, and drivers read options on every operation. That
        # cache is emptied by everything that can change the answer (set_override,
        # clear_override, set_default, a reload of the files), so an answer kept in it is
        # dropped with the values. Without that cache (another oslo.config), nothing is kept.
        self._kept = getattr(conf, '_ConfigOpts__cache', None)

    def __getattr__(self, name):
        kept = self._kept
        if kept is None:
            return self._conf[self._section_of(name)][name]
        key = (_KEPT, self.config_group, name)
        section = kept.get(key)
        if section is None:
            section = kept[key] = self._section_of(name)
        return self._conf[section][name]

    def _section_of(self, name) -> str:
        """[<section>] when it sets *name*, else [backend_defaults] when that has it."""
        conf = self._conf
        section = self.config_group
        # NOTE(backend_defaults): an option counts as set when it comes from anywhere but
        # its declared default (a config file, set_default, set_override); oslo.config
        # gives no location at all for an unset option whose default is None.
        info = conf.get_location(name, section)
        unset = info is None or info.location is cfg.Locations.opt_default
        return GROUP if unset and name in conf[GROUP] else section


# Marks BackendConfiguration's entries in oslo.config's cache, whose own keys are pairs.
_KEPT = 'cinderlike.backend_section'


def register_backend(conf, section, extra_opts=()):
    """Register the backend options (and a driver's *extra_opts*) into *section*.

    :returns: the BackendConfiguration of *section*.
    """
    opts = BACKEND_OPTS + list(extra_opts)
    conf.register_opts(opts, group=section)
    conf.register_opts(opts, group=GROUP)
    return BackendConfiguration(conf, section)


def register_opts(conf):
    conf.register_opts(BACKEND_OPTS, group=GROUP)


def list_opts():
    return [(GROUP, BACKEND_OPTS + fake.DRIVER_OPTS + file.DRIVER_OPTS)]
