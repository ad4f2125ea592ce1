"""Entry point for oslo-config-generator: every option cinderlike declares, by group."""

from cinderlike import conf as conf_pkg


def list_opts():
    groups = {}
    for module in conf_pkg._MODULES:
        for group, opts in module.list_opts():
            groups.setdefault(group, []).extend(opts)
    return sorted(groups.items(), key=lambda item: (item[0] is not None, item[0] or ''))
