"""cinderlike-api: request latency by route template and status (Prometheus), summed over
gunicorn's workers with prometheus_client's multiprocess mode.

Each worker writes its samples to files in one directory (PROMETHEUS_MULTIPROC_DIR) that the
API daemon makes under `state_path` at start-up and removes at exit; the master process
serves their sum on `[metrics] api_port` and marks a worker's files dead when it exits.
"""

import os
import shutil
import tempfile
import time

import falcon

ENV = 'PROMETHEUS_MULTIPROC_DIR'
UNROUTED = 'unrouted'
# The directory's name under $state_path: api-metrics-<master pid>-<random>.
PREFIX = 'api-metrics-'


class RequestMetrics:
    """falcon middleware: each request's latency by method, route and status code.

    The route is falcon's uri_template (`/v3/{project_id}/volumes/{volume_id}`), never the
    raw path, so the label set is bounded by the route table; a request refused before
    routing (or matching no route) is `unrouted`.
    """

    def __init__(self, registry=None):
        # NOTE(import): imported here, not at module level, so cmd/api.py can set ENV first:
        # prometheus_client picks its multiprocess value class when it is first imported.
        import prometheus_client
        self.seconds = prometheus_client.Histogram(
            'cinderlike_api_request_duration_seconds',
            'Time to answer an API request, by method, route template and status code.',
            ['method', 'route', 'status'], registry=registry)

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.metrics_started = time.perf_counter()

    def process_response(self, req: falcon.Request, resp: falcon.Response, resource,
                         req_succeeded: bool) -> None:
        started = getattr(req.context, 'metrics_started', None)
        if started is None:
            return
        self.seconds.labels(req.method, req.uri_template or UNROUTED,
                            str(falcon.http_status_to_code(resp.status))).observe(
            time.perf_counter() - started)


class SharedDirectory:
    """The multiprocess directory of one API daemon run, served by its master process."""

    def __init__(self, parent: str):
        os.makedirs(parent, exist_ok=True)
        _remove_orphans(parent)
        self._owner = os.getpid()
        self.path = tempfile.mkdtemp(prefix=f'{PREFIX}{self._owner}-', dir=parent)
        os.environ[ENV] = self.path
        self._server = None

    def serve(self, *, addr: str, port: int) -> None:
        """GET /metrics: the sum of every worker's files (a daemon thread of the master)."""
        import prometheus_client
        from prometheus_client import multiprocess
        registry = prometheus_client.CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=self.path)
        self._server, _thread = prometheus_client.start_http_server(port, addr=addr,
                                                                    registry=registry)

    def worker_exited(self, pid: int) -> None:
        """gunicorn's child_exit: the worker's live-gauge files go (its counts stay summed)."""
        from prometheus_client import multiprocess
        multiprocess.mark_process_dead(pid, path=self.path)

    def remove(self) -> None:
        """gunicorn's on_exit (the master only: workers fork with this object)."""
        if os.getpid() != self._owner:
            return
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        shutil.rmtree(self.path, ignore_errors=True)
        os.environ.pop(ENV, None)


def _remove_orphans(parent: str) -> None:
    """The directories of earlier runs whose master is gone (killed before its on_exit)."""
    for entry in os.scandir(parent):
        pid = entry.name[len(PREFIX):].partition('-')[0]
        if not entry.name.startswith(PREFIX) or not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(entry.path, ignore_errors=True)
        except PermissionError:
            pass  # another user's live process
