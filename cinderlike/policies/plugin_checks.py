"""oslo.policy's rule-check plugins (its `http:` and `https:`, and any other package's): each
loaded at the first rule that names its kind, not all of them at the first rule parsed."""

from importlib import metadata

from oslo_policy import _checks

GROUP = 'oslo.policy.rule_checks'


def _deferred(entry_point: metadata.EntryPoint):
    def check(kind: str, match: str):
        return entry_point.load()(kind, match)
    return check


def defer() -> None:
    """Name every plugin of GROUP to oslo.policy's parser without importing it.

    NOTE(memory): oslo.policy loads every plugin of GROUP through stevedore at the first
    rule it parses, our defaults' at import, and its `http:` check imports requests, urllib3,
    charset_normalizer and idna: 5.7 MB of every API process's resident size and 110
    modules that no default rule uses. The names still come from the installed entry points,
    so a policy file's `http:` rule, or another package's check, is parsed as before.
    """
    # NOTE(oslo): an oslo.policy without this module global loads its plugins its own way.
    if getattr(_checks, 'extension_checks', ()) is None:
        _checks.extension_checks = {
            entry_point.name: _deferred(entry_point)
            for entry_point in metadata.entry_points(group=GROUP)}
