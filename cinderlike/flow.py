"""Run a linear flow of taskflow tasks in the calling thread: the request paths of the API,
scheduler and volume service, where taskflow's engine costs more than the work it runs.

NOTE(engine): a taskflow engine spends ~5 ms of CPU per run plus ~1 ms per task on its
state machine and in-memory persistence (measured with benchmarks/volumes.py), several
times the work of a volume create. The tasks stay taskflow Tasks — the same argument
binding (`rebind`, `save_as`) and the same reverts (`result`, `flow_failures`) — only
the engine is this loop.
"""

import time
from collections.abc import Callable

from oslo_log import log as logging
from taskflow.types import failure as tf_failure

LOG = logging.getLogger(__name__)


class LinearFlow:
    """Tasks run in order; on a failure the failed task and those before it revert, in
    reverse order, and the original exception is raised again (as taskflow's engine does).

    Task objects are built once and shared: they must keep no per-run state.
    """

    def __init__(self, name: str, *tasks):
        names = [task.name for task in tasks]
        if len(set(names)) != len(names):
            raise ValueError(f'flow {name}: task names must be unique: {names}')
        self.name = name
        self.tasks = tasks

    @staticmethod
    def _arguments(rebind, values: dict) -> dict:
        # NOTE(optional): an argument with a default that nothing provides is left out,
        # as taskflow does, so the default applies.
        return {arg: values[key] for arg, key in rebind.items() if key in values}

    @staticmethod
    def _save(task, result, values: dict) -> None:
        for name, index in task.save_as.items():
            values[name] = result if index is None else result[index]

    def run(self, store: dict, *,
            timer: Callable[[str, str, float], None] | None = None) -> dict:
        """The store plus every task's results, by the names the tasks provide.

        *timer(flow name, outcome, seconds)* hears how long the run took, reverts included
        (outcome `ok`, or `reverted` when a task failed).
        """
        started = time.perf_counter()
        values = dict(store)
        done = []
        for task in self.tasks:
            try:
                result = task.execute(**self._arguments(task.rebind, values))
            except Exception:
                failed = tf_failure.Failure()
                self._revert(done, task, failed, values)
                if timer is not None:
                    timer(self.name, 'reverted', time.perf_counter() - started)
                raise
            done.append((task, result))
            self._save(task, result, values)
        if timer is not None:
            timer(self.name, 'ok', time.perf_counter() - started)
        return values

    def _revert(self, done, failed_task, failed, values: dict) -> None:
        flow_failures = {failed_task.name: failed}
        LOG.debug('Flow %(flow)s: task %(task)s failed (%(error)s); reverting',
                  {'flow': self.name, 'task': failed_task.name, 'error': failed.exception_str})
        for task, result in [(failed_task, failed), *reversed(done)]:
            task.revert(**self._arguments(task.revert_rebind, values), result=result,
                        flow_failures=flow_failures)
