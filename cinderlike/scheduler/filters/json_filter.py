"""JsonFilter: the `query` scheduler hint, a JSON prefix expression over pool attributes.

Example: ["and", [">=", "$free_capacity_gb", 100], ["=", "$capabilities.tier", "gold"]].
"""

import json
import operator

from cinderlike import exception
from cinderlike.scheduler.filters import base


def _compare(op):
    def run(args):
        # The first term against every other; fewer than two terms is False.
        if len(args) < 2:
            return False
        return all(op(args[0], other) for other in args[1:])
    return run


_COMMANDS = {
    '=': _compare(operator.eq), '<': _compare(operator.lt), '>': _compare(operator.gt),
    '<=': _compare(operator.le), '>=': _compare(operator.ge),
    'in': lambda args: len(args) >= 2 and args[0] in args[1:],
    'not': lambda args: [not arg for arg in args],
    'or': any,
    'and': all,
}


def _resolve(text, pool):
    """'$attr' or '$attr.key.key' looks up the pool; other strings are literals."""
    if not text:
        return None
    if not text.startswith('$'):
        return text
    path = text[1:].split('.')
    obj = getattr(pool, path[0], None)
    for item in path[1:]:
        if obj is None:
            return None
        obj = obj.get(item)
    return obj


def _evaluate(query, pool):
    if not query:
        return True
    method = _COMMANDS[query[0]]
    args = []
    for arg in query[1:]:
        if isinstance(arg, list):
            arg = _evaluate(arg, pool)
        elif isinstance(arg, str):
            arg = _resolve(arg, pool)
        if arg is not None:  # NOTE(json): Cinder drops unresolved terms before comparing
            args.append(arg)
    return method(args)


class JsonFilter(base.BaseFilter):
    name = 'JsonFilter'

    def prepare(self, request):
        query = request.scheduler_hints.get('query')
        if not query:
            return None
        try:
            parsed = json.loads(query) if isinstance(query, str) else query
        except ValueError as exc:
            raise exception.InvalidInput(reason=f'scheduler hint query: {exc}') from exc

        def passes(pool):
            result = _evaluate(parsed, pool)
            return any(result) if isinstance(result, list) else bool(result)
        return passes
