"""cinderlike/periodic.py: spacing, fuzzy first delay and error isolation, on a fake clock."""

import pytest

from cinderlike import periodic
from tests.fixtures.clock import Clock


class MaxRandom:
    """An rng whose uniform(a, b) always returns b."""

    def uniform(self, low, high):
        return high


class Tasks:
    def __init__(self, clock):
        self.clock = clock
        self.runs = {'every_10': [], 'from_opt': [], 'immediate': []}

    @periodic.periodic(spacing=10)
    def every_10(self, context):
        self.runs['every_10'].append(self.clock.now)

    @periodic.periodic(spacing_opt='poll_interval')
    def from_opt(self, context):
        self.runs['from_opt'].append(self.clock.now)

    @periodic.periodic(spacing=25, run_immediately=True)
    def immediate(self, context):
        self.runs['immediate'].append(self.clock.now)

    def not_periodic(self, context):
        raise AssertionError('collected a method that is not periodic')


def _runner(tasks, clock, options, *, interval=60, fuzzy_delay=0, rng=None):
    return periodic.PeriodicRunner(periodic.collect(tasks), lookup=options.__getitem__,
                                   interval=interval, fuzzy_delay=fuzzy_delay,
                                   context_factory=object, clock=clock, rng=rng)


def test_decorator_needs_exactly_one_spacing():
    with pytest.raises(ValueError):
        periodic.periodic()
    with pytest.raises(ValueError):
        periodic.periodic(5, spacing_opt='x')


def test_collect_finds_only_decorated_methods():
    names = [m.__name__ for m in periodic.collect(Tasks(Clock()))]
    assert names == ['every_10', 'from_opt', 'immediate']


def test_each_task_runs_at_its_own_spacing():
    clock = Clock()
    tasks = Tasks(clock)
    runner = _runner(tasks, clock, {'poll_interval': 15})
    while clock.now <= 1060:
        clock.now += runner.run_due()
    assert tasks.runs['every_10'] == [1010.0, 1020.0, 1030.0, 1040.0, 1050.0, 1060.0]
    assert tasks.runs['from_opt'] == [1015.0, 1030.0, 1045.0, 1060.0]
    assert tasks.runs['immediate'] == [1000.0, 1025.0, 1050.0]


def test_spacing_option_is_read_at_every_tick():
    clock = Clock()
    tasks = Tasks(clock)
    options = {'poll_interval': 15}
    runner = _runner(tasks, clock, options)
    clock.now += 15
    runner.run_due()
    options['poll_interval'] = 40
    clock.now += 15
    runner.run_due()
    clock.now += 25
    runner.run_due()
    assert tasks.runs['from_opt'] == [1015.0, 1055.0]


def test_idle_time_is_capped_by_periodic_interval():
    class Slow:
        @periodic.periodic(spacing=3600)
        def hourly(self, context):
            pass

    clock = Clock()
    runner = _runner(Slow(), clock, {}, interval=60)
    assert runner.run_due() == 60


def test_first_tick_waits_the_fuzzy_delay_then_ticks():
    clock = Clock()
    tasks = Tasks(clock)
    runner = _runner(tasks, clock, {'poll_interval': 15}, fuzzy_delay=7, rng=MaxRandom())
    waits = []

    def wait(seconds):
        waits.append(seconds)
        clock.now += seconds
        return len(waits) > 4

    runner.loop(wait)
    assert waits[0] == 7
    # the immediate task ran at the first tick, right after the fuzzy delay
    assert tasks.runs['immediate'] == [1007.0]
    # then each tick comes when the next task falls due
    assert waits[1:] == [3.0, 5.0, 5.0, 10.0]
    assert tasks.runs['every_10'] == [1010.0, 1020.0]
    assert tasks.runs['from_opt'] == [1015.0]


def test_fuzzy_delay_is_random_within_bounds():
    runner = _runner(Tasks(Clock()), Clock(), {}, fuzzy_delay=60)
    delays = {runner.initial_delay() for _ in range(50)}
    assert all(0 <= d <= 60 for d in delays)
    assert len(delays) > 1
    assert _runner(Tasks(Clock()), Clock(), {}, fuzzy_delay=0).initial_delay() == 0


def test_stop_during_fuzzy_delay_runs_nothing():
    clock = Clock()
    tasks = Tasks(clock)
    _runner(tasks, clock, {'poll_interval': 15}).loop(lambda seconds: True)
    assert tasks.runs == {'every_10': [], 'from_opt': [], 'immediate': []}


def test_a_failing_task_does_not_stop_the_others():
    class Failing:
        def __init__(self):
            self.ran = 0

        @periodic.periodic(spacing=1, run_immediately=True)
        def a_fails(self, context):
            raise RuntimeError('boom')

        @periodic.periodic(spacing=1, run_immediately=True)
        def b_runs(self, context):
            self.ran += 1

    clock = Clock()
    tasks = Failing()
    runner = _runner(tasks, clock, {})
    runner.run_due()
    clock.now += 1
    runner.run_due()
    assert tasks.ran == 2
