"""cinderlike-api: the `[healthcheck] backends` of /healthcheck. oslo.middleware's three
built-in plugins are ours, with its reasons, details and log messages; any other name is a
third-party plugin, loaded from oslo.middleware's entry-point namespace as it loads it."""

import os

import stevedore
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# Where oslo.middleware's healthcheck finds its plugins, third-party ones included.
NAMESPACE = 'oslo.middleware.healthcheck'


class HealthcheckResult:
    """What a check answers. Named as oslo.middleware's pluginbase class, since the detailed
    answers show the result's class name."""

    def __init__(self, available: bool, reason: str, details: str | None = None):
        self.available = available
        self.reason = reason
        self.details = details


class DisableByFile:
    """`disable_by_file`: unavailable while the file `disable_by_file_path` exists."""

    def __init__(self, conf):
        self._group = conf.healthcheck

    def healthcheck(self, server_port: int) -> HealthcheckResult:
        # NOTE(reread): read at each request, as oslo.middleware's plugin reads it.
        path = self._group.disable_by_file_path
        if not path:
            LOG.warning('DisableByFile healthcheck middleware enabled without '
                        'disable_by_file_path set')
            return HealthcheckResult(
                available=True, reason='OK',
                details="No 'disable_by_file_path' configuration value specified")
        if not os.path.exists(path):
            return HealthcheckResult(available=True, reason='OK',
                                     details=f"Path '{path}' was not found")
        return HealthcheckResult(available=False, reason='DISABLED BY FILE',
                                 details=f"Path '{path}' was found")


class DisableByFilesPorts:
    """`disable_by_files_ports`: unavailable while the file named for the port the request
    came in on (`disable_by_file_paths`, "port:path" items) exists."""

    def __init__(self, conf):
        self._paths = {}
        for item in conf.healthcheck.disable_by_file_paths:
            item = item.strip()
            if item:
                # NOTE(windows): split once; a Windows path's drive letter has a colon too.
                # A port that is no number, or no colon, fails the plugin's load.
                port, path = item.split(':', 1)
                self._paths[int(port)] = path

    def healthcheck(self, server_port: int) -> HealthcheckResult:
        path = self._paths.get(server_port)
        if not path:
            LOG.warning('DisableByFilesPorts healthcheck middleware enabled without '
                        'disable_by_file_paths set for port %s', server_port)
            return HealthcheckResult(available=True, reason='OK')
        if not os.path.exists(path):
            return HealthcheckResult(available=True, reason='OK')
        return HealthcheckResult(available=False, reason='DISABLED BY FILE')


class EnableByFiles:
    """`enable_by_files`: unavailable while any of the files `enable_by_file_paths` is
    missing."""

    def __init__(self, conf):
        self._paths = conf.healthcheck.enable_by_file_paths

    def healthcheck(self, server_port: int) -> HealthcheckResult:
        for path in self._paths:
            if not os.path.exists(path):
                LOG.warning('EnableByFiles healthcheck middleware: Path %s is not present',
                            path)
                return HealthcheckResult(available=False, reason='FILE PATH MISSING',
                                         details=f'File path {path} is missing')
        return HealthcheckResult(available=True, reason='OK',
                                 details='Specified file paths are available')


BUILT_IN = {
    'disable_by_file': DisableByFile,
    'disable_by_files_ports': DisableByFilesPorts,
    'enable_by_files': EnableByFiles,
}


def load(conf, names: list[str]) -> list:
    """The checks *names* (`[healthcheck] backends`) name, in their order, as
    oslo.middleware's stevedore NamedExtensionManager gives them.

    As there, a plugin that fails to load is logged and left out, names that load nothing
    are warned about once, and a name given twice runs its (one) check twice.
    """
    loaded = {}
    others = [name for name in names if name not in BUILT_IN]
    if others:
        loaded.update(_third_party(conf, others))
    for name in dict.fromkeys(names):
        if name in BUILT_IN:
            try:
                loaded[name] = BUILT_IN[name](conf)
            except Exception as error:
                # NOTE(stevedore): its words for a plugin that fails to load.
                LOG.error('Could not load %r: %s', name, error)
    missing = set(names) - set(loaded)
    if missing:
        LOG.warning('Could not load %s', ', '.join(missing))
    return [loaded[name] for name in names if name in loaded]


def _third_party(conf, names: list[str]) -> dict:
    """{name: check} of the entry points *names* name, built as oslo.middleware builds its
    plugins: `plugin(oslo_conf, {})`. Such a plugin may import oslo.middleware itself."""
    manager = stevedore.NamedExtensionManager(
        NAMESPACE, names, invoke_on_load=True, invoke_args=(conf, {}),
        on_missing_entrypoints_callback=None)
    return {extension.name: extension.obj for extension in manager.extensions}
