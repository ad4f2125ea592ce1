"""Extra-spec requirement matching for CapabilitiesFilter (Cinder's extra_specs_ops).

`compile_requirement('<in> ssd')` is parsed once per request; the matcher it returns is
called with each pool's capability value.
"""

import functools
import operator

from oslo_utils import strutils


def _num(op):
    return lambda value, word: op(float(value), float(word))


def _is(value, word):
    return strutils.bool_from_string(value) is strutils.bool_from_string(word)


# NOTE(extra-specs): '=' means numeric >= (a legacy from Nova), not equality.
_OPS = {
    '=': _num(operator.ge), '==': _num(operator.eq), '!=': _num(operator.ne),
    '>=': _num(operator.ge), '<=': _num(operator.le),
    's==': operator.eq, 's!=': operator.ne, 's<': operator.lt, 's<=': operator.le,
    's>': operator.gt, 's>=': operator.ge,
    '<in>': lambda value, word: word in value,
    '<is>': _is,
}


def _or(value, words):
    """'<or> a <or> b': any alternative equals the value."""
    return value in words[::2]


def _all_in(value, words):
    return bool(words) and all(word in value for word in words)


def _single(method, words):
    word = words[0] if words else None

    def test(value):
        try:
            return word is not None and bool(method(value, word))
        except (ValueError, TypeError):
            return False
    return test


@functools.lru_cache(maxsize=4096)
def compile_requirement(req):
    """Return `matcher(value) -> bool` for the extra-spec value *req*.

    No known operator as the first word: plain equality with the whole string. A capability
    reported as a list matches when any element does (CapabilitiesFilter), except for
    <all-in>, whose words must all be in the value (each a member of the list itself).
    """
    if req is None:
        return lambda value: value is None
    words = req.split()
    op = words.pop(0) if words else None
    if op == '<or>':
        test = functools.partial(_or, words=tuple(words))
    elif op == '<all-in>':
        test = functools.partial(_all_in, words=tuple(words))
    elif op in _OPS:
        test = _single(_OPS[op], words)
    else:
        # NOTE(perf): `req in list` is "any element equals req".
        return lambda value: req in value if type(value) is list else value == req
    if op == '<all-in>':
        return lambda value: value is not None and _safe(test, value)
    return lambda value: (value is not None and
                          (test(value) if type(value) is not list else any(map(test, value))))


def _safe(test, value):
    try:
        return bool(test(value))
    except TypeError:
        return False


def match(value, req) -> bool:
    """True when capability *value* satisfies extra-spec *req*."""
    return compile_requirement(req)(value)
