"""The filter/goodness function language: operands, precedence, functions, variables, errors."""

import pytest

from cinderlike import exception
from cinderlike.scheduler import evaluator

NS = dict(stats={'total_capacity_gb': 500, 'free_capacity_gb': 120.7, 'host': 'h@b#p',
                 'QoS_support': True, 'storage_protocol': 'iSCSI', 'missing': None},
          capabilities={'utilization': 42.9, 'tier': 'gold', 'io_ratio': 3},
          volume={'size': 10}, qos={'maxIOPS': 1000}, extra={'speed': 'fast'})


@pytest.mark.parametrize('text, expected', [
    ('1', 1), ('2.5', 2.5), ('"abc"', 'abc'), ("'abc'", 'abc'), ('"7"', '7'),
    ('1 + 2 * 3', 7), ('(1 + 2) * 3', 9), ('10 - 4 - 3', 3), ('8 / 2 / 2', 2.0),
    ('7 / 2', 3.5), ('2 ^ 3 ^ 2', 512), ('-2 ^ 2', -4), ('- 3 + 5', 2), ('+4', 4),
    ('2 * -3', -6), ('abs(-5)', 5), ('max(1, 7, 3)', 7), ('min(4, 2 + 1)', 3),
    ('max(1, 2) + 1', 3), ('abs(2 - 9) * 2', 14),
    ('1 < 2', True), ('2 <= 2', True), ('3 > 4', False), ('3 >= 4', False),
    ('1 == 1', True), ('1 != 1', False), ('1 <> 2', True), ('1 < 2 < 3', True),
    ('1 < 3 < 2', False), ('not 1', False), ('!0', True), ('NOT 1 == 1', False),
    ('1 and 0', 0), ('1 && 2', 2), ('0 or 3', 3), ('0 || 0', 0), ('1 AND 1 OR 0', 1),
    ('0 and 1 and 1', 0), ('1 and 1 and 0', 0), ('0 or 0 or 5', 5),
    ('1 ? 10 : 20', 10), ('0 ? 10 : 20', 20), ('1 < 2 ? 3 : 4', 3),
    ('1 or 0 ? 0 : 0', 1),                          # ternary binds tighter than OR
    ('1 > 0 and 2 > 1', True),
])
def test_constant_expressions(text, expected):
    result = evaluator.evaluate(text, **NS)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize('text, expected', [
    ('stats.total_capacity_gb', 500),
    ('stats.free_capacity_gb', 120),               # Cinder applies int() first: truncated
    ('stats.free_capacity_gb / stats.total_capacity_gb * 100', 24.0),
    ('capabilities.utilization < 50 ? 100 : 0', 100),
    ('100 - capabilities.utilization', 58),
    ('capabilities.tier == "gold"', True),
    ('stats.host', 'h@b#p'),
    ('stats.QoS_support', 1),
    ('volume.size < 20 and qos.maxIOPS >= 1000', True),
    ('extra.speed == "fast"', True),
    ('stats.storage_protocol == "iSCSI"', True),
    ('foo', 'foo'),                                # no dot: a bare word is a string
    ('max(capabilities.io_ratio, volume.size)', 10),
])
def test_variables(text, expected):
    assert evaluator.evaluate(text, **NS) == expected


@pytest.mark.parametrize('text', [
    'stats.nope', 'other.thing', 'stats.missing + 1', '1 / 0', '1 +', '(1', '1 )', '',
    '1 = 2', 'capabilities.tier > 1', '1 $ 2', 'max(', '? 1 : 2',
])
def test_errors_raise_evaluator_parse_exception(text):
    with pytest.raises(exception.EvaluatorParseException):
        evaluator.evaluate(text, **NS)


def test_missing_namespace_is_an_error():
    with pytest.raises(exception.EvaluatorParseException):
        evaluator.evaluate('qos.maxIOPS > 1', stats={}, qos=None)


def test_compile_is_cached_and_reusable():
    first = evaluator.compile_expression('volume.size * 2')
    assert evaluator.compile_expression('volume.size * 2') is first
    assert first.evaluate(volume={'size': 3}) == 6
    assert first.evaluate(volume={'size': 5}) == 10


def test_no_python_evaluation():
    with pytest.raises(exception.EvaluatorParseException):
        evaluator.evaluate('__import__("os").system("true")', **NS)
