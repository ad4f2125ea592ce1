"""GoodnessWeigher: the pool's goodness_function, a rating from 0 (poor) to 100 (perfect)."""

from oslo_log import log as logging

from cinderlike import exception
from cinderlike.scheduler.weighers import base

LOG = logging.getLogger(__name__)


def goodness_rating(pool, request) -> float:
    """No function, an error, or a result outside 0..100 rate 0; True is 100."""
    expression = pool.goodness_expression
    if expression is None:
        return 0
    if isinstance(expression, Exception):
        LOG.warning('Error in goodness_function of %s: %s', pool.backend_id, expression)
        return 0
    try:
        result = expression.evaluate(**request.namespaces(pool))
    except exception.EvaluatorParseException as exc:
        LOG.warning('Error in goodness_function of %s: %s', pool.backend_id, exc)
        return 0
    if type(result) is bool:
        return 100 if result else 0
    if not isinstance(result, (int, float)) or result < 0 or result > 100:
        LOG.warning('Invalid goodness result %r from %s', result, pool.backend_id)
        return 0
    return result


class GoodnessWeigher(base.BaseWeigher):
    name = 'GoodnessWeigher'

    def weigh_one(self, pool, request):
        return goodness_rating(pool, request)
