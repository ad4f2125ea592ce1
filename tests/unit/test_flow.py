"""cinderlike/flow.py: taskflow tasks run in order, results bound by name, reverts on failure."""

import pytest
from taskflow import task

from cinderlike import flow


class Record(task.Task):
    """Appends its name to the store's `log` on execute and revert."""

    def __init__(self, name, *, provides=None, fail=False):
        super().__init__(name=name, provides=provides)
        self._fail = fail

    def execute(self, log, value=None):
        log.append(('execute', self.name, value))
        if self._fail:
            raise KeyError(self.name)
        return f'{self.name}-result'

    def revert(self, log, result, flow_failures, **kwargs):
        shown = result if isinstance(result, str) else type(result.exception).__name__
        log.append(('revert', self.name, shown, sorted(flow_failures)))


class Pair(task.Task):
    default_provides = ('first', 'second')

    def execute(self):
        return 1, 2


class Sum(task.Task):
    default_provides = 'total'

    def execute(self, first, second, extra=10):
        return first + second + extra


def test_results_are_bound_by_name_and_tuple_results_unpacked():
    values = flow.LinearFlow('f', Pair(), Sum()).run({})
    assert (values['first'], values['second'], values['total']) == (1, 2, 13)


def test_a_stored_value_overrides_an_argument_default():
    assert flow.LinearFlow('f', Pair(), Sum()).run({'extra': 0})['total'] == 3


def test_a_later_task_sees_an_earlier_result():
    log = []
    flow.LinearFlow('f', Record('a', provides='value'), Record('b')).run({'log': log})
    assert log == [('execute', 'a', None), ('execute', 'b', 'a-result')]


def test_a_failure_reverts_the_failed_task_then_the_earlier_ones_and_raises_it_again():
    log = []
    tasks = flow.LinearFlow('f', Record('a'), Record('b'), Record('c', fail=True),
                            Record('d'))
    with pytest.raises(KeyError, match='c'):
        tasks.run({'log': log})
    assert log == [
        ('execute', 'a', None), ('execute', 'b', None), ('execute', 'c', None),
        ('revert', 'c', 'KeyError', ['c']),
        ('revert', 'b', 'b-result', ['c']),
        ('revert', 'a', 'a-result', ['c']),
    ]


def test_task_names_must_be_unique():
    with pytest.raises(ValueError, match='unique'):
        flow.LinearFlow('f', Record('a'), Record('a'))


def test_the_timer_hears_each_run_with_its_outcome():
    heard = []
    timer = lambda name, outcome, seconds: heard.append((name, outcome, seconds >= 0))  # noqa: E731
    flow.LinearFlow('good', Record('a')).run({'log': []}, timer=timer)
    with pytest.raises(KeyError):
        flow.LinearFlow('bad', Record('a'), Record('b', fail=True)).run({'log': []},
                                                                        timer=timer)
    assert heard == [('good', 'ok', True), ('bad', 'reverted', True)]
