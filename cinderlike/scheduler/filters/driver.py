"""DriverFilter: a pool passes when its reported filter_function is true for the request."""

from cinderlike import exception
from cinderlike.scheduler.backend_state import protocol_variants
from cinderlike.scheduler.filters import base


def filter_function_passes(pool, request) -> bool:
    """No function passes; a function that fails to parse or evaluate fails the pool."""
    expression = pool.filter_expression
    if expression is None:
        return True
    if isinstance(expression, Exception):
        return False
    stats = pool.stats()
    # NOTE(driver-filter): a function naming storage_protocol is tried with every spelling of
    # the protocol (iSCSI/iscsi, FC/fc/...); any passing spelling lets the pool through.
    variants = (protocol_variants(stats['storage_protocol'])
                if 'storage_protocol' in expression.text else (stats['storage_protocol'],))
    for protocol in variants:
        stats['storage_protocol'] = protocol
        try:
            if expression.evaluate(**request.namespaces(pool, stats)):
                return True
        except exception.EvaluatorParseException:
            continue
    return False


class DriverFilter(base.BaseFilter):
    name = 'DriverFilter'

    def prepare(self, request):
        return lambda pool: filter_function_passes(pool, request)
