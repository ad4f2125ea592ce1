"""Log levels changed and read at run time (os-services set-log / get-log, 3.32): the same
rules in the API process and, over RPC, in every daemon's manager."""

import logging as std_logging

from oslo_log import log as logging

from cinderlike import exception

# Cinder's choice: the levels an operator may set.
LEVELS = ('INFO', 'WARNING', 'ERROR', 'DEBUG')


def level_of(name) -> int:
    """The logging level *name* stands for (any case).

    :raises InvalidInput: "<name> is not a valid log level." as Cinder.
    """
    name = name or ''
    if name.upper() not in LEVELS:
        raise exception.InvalidInput(reason=f'{name} is not a valid log level.')
    return getattr(std_logging, name.upper())


def _loggers(prefix: str | None):
    # NOTE(loggers): oslo.log keeps every logger made through log.getLogger, which is
    # how each cinderlike module and library that Cinder lists gets its own.
    return {name: adapter.logger for name, adapter in logging.get_loggers().items()
            if name and name.startswith(prefix or '')}


def set_levels(prefix: str | None, level) -> None:
    """Set *level* on every logger whose name starts with *prefix* (all when empty).

    :raises InvalidInput: for a level outside LEVELS.
    """
    value = level_of(level)
    for logger in _loggers(prefix).values():
        logger.setLevel(value)


def get_levels(prefix: str | None) -> dict[str, str]:
    """{logger name: effective level name} of the loggers whose name starts with *prefix*."""
    return {name: std_logging.getLevelName(logger.getEffectiveLevel())
            for name, logger in _loggers(prefix).items()}
