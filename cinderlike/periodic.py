"""Periodic tasks of the daemons: the `@periodic` decorator and the runner service.py drives.

The runner ticks every `periodic_interval` (sooner when a task falls due earlier) after a
random first delay of up to `periodic_fuzzy_delay`, so services started together spread out.
"""

import dataclasses
import random
import time

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Spec:
    spacing: float | None
    spacing_opt: str | None
    run_immediately: bool


def periodic(spacing=None, *, spacing_opt=None, run_immediately=False):
    """Mark a manager method `f(self, context)` as periodic.

    *spacing* is in seconds; *spacing_opt* names an option read at every tick (so a SIGHUP
    change applies). Without run_immediately the first run waits one spacing.
    """
    if (spacing is None) == (spacing_opt is None):
        raise ValueError('give exactly one of spacing and spacing_opt')

    def decorate(func):
        func._periodic = Spec(spacing, spacing_opt, run_immediately)
        return func
    return decorate


def collect(obj):
    """Bound `@periodic` methods of *obj*, in name order."""
    tasks = []
    for name in sorted(dir(type(obj))):
        func = getattr(type(obj), name)
        if callable(func) and hasattr(func, '_periodic'):
            tasks.append(getattr(obj, name))
    return tasks


class _Task:
    def __init__(self, method, started_at):
        self.method = method
        self.spec = method._periodic
        self.last_run = None if self.spec.run_immediately else started_at


class PeriodicRunner:
    """Runs tasks when due; *clock* and *rng* are injectable so tests control time."""

    def __init__(self, tasks, *, lookup, interval, fuzzy_delay, context_factory,
                 clock=time.monotonic, rng=None):
        self._lookup = lookup
        self._interval = interval
        self._fuzzy_delay = fuzzy_delay
        self._context_factory = context_factory
        self._clock = clock
        self._rng = rng or random.Random()
        now = clock()
        self._tasks = [_Task(method, now) for method in tasks]

    def initial_delay(self) -> float:
        """A random delay in [0, periodic_fuzzy_delay] before the first tick."""
        return self._rng.uniform(0, self._fuzzy_delay) if self._fuzzy_delay else 0.0

    def spacing_of(self, task) -> float:
        spec = task.spec
        return spec.spacing if spec.spacing_opt is None else self._lookup(spec.spacing_opt)

    def run_due(self) -> float:
        """Run every task that is due now; return seconds until the next tick."""
        idle = self._interval
        for task in self._tasks:
            spacing = self.spacing_of(task)
            now = self._clock()
            if task.last_run is None or now - task.last_run >= spacing:
                task.last_run = now
                self._run(task)
                now = self._clock()
            idle = min(idle, max(0.0, task.last_run + spacing - now))
        return idle

    def _run(self, task):
        name = task.method.__name__
        LOG.debug('Running periodic task %s', name)
        try:
            task.method(self._context_factory())
        except Exception:
            # NOTE(periodic): one failing task must not stop the others or later runs.
            LOG.exception('Error during periodic task %s', name)

    def loop(self, wait):
        """Tick until `wait(seconds)` returns True (the stop event is set)."""
        if wait(self.initial_delay()):
            return
        while not wait(self.run_due()):
            pass
