"""tooz coordinator of the volume and backup processes: started and stopped with their service.

Its locks serialise driver work on one resource across processes (and across the members of an
Active-Active cluster when `[coordination] backend_url` points at a shared backend).
"""

import os
import urllib.parse

from oslo_log import log as logging
from tooz import coordination as tooz_coordination

LOG = logging.getLogger(__name__)


def file_lock_dir(conf) -> str | None:
    """The directory tooz's file backend keeps its lock files in (a file per lock name), as
    tooz reads it from `[coordination] backend_url`; None for the other backends."""
    url = urllib.parse.urlsplit(conf.coordination.backend_url)
    return url.path if url.scheme == 'file' else None


class Coordinator:
    """One tooz coordinator per service, named after the service's host and binary."""

    def __init__(self, conf, *, member_id):
        self._conf = conf
        self._member_id = member_id
        self._coordinator = None

    @property
    def started(self) -> bool:
        return self._coordinator is not None

    def start(self):
        """Connect to `[coordination] backend_url`; heartbeats run in tooz's own thread."""
        if self.started:
            return
        url = self._conf.coordination.backend_url
        coordinator = tooz_coordination.get_coordinator(url, self._member_id.encode())
        coordinator.start(start_heart=True)
        self._coordinator = coordinator
        LOG.info('Coordination backend started for %s', self._member_id)

    def stop(self):
        """Leave the backend; locks this member held are released by tooz."""
        if not self.started:
            return
        coordinator, self._coordinator = self._coordinator, None
        try:
            coordinator.stop()
        except tooz_coordination.ToozError:
            LOG.exception('Error stopping the coordination backend of %s', self._member_id)

    def get_lock(self, name: str):
        """A distributed lock named *name*; use it as a context manager."""
        if not self.started:
            raise RuntimeError('coordinator not started')
        return self._coordinator.get_lock(name.encode())

    def remove_locks(self, names) -> None:
        """Remove what the locks *names* left behind, once the resource they are named after
        is gone, as Cinder's synchronized_remove: tooz's file backend keeps a file per lock
        name (a file per volume ever deleted, otherwise), the other backends nothing.

        NOTE(race): called under the resource's delete lock. A delete waiting for it holds
        the removed file open and then finds the resource gone; one that comes later makes a
        new file, and removes it in turn when it finds the resource gone.
        """
        directory = file_lock_dir(self._conf)
        if directory is None:
            return
        for name in names:
            try:
                os.remove(os.path.join(directory, name))
            except FileNotFoundError:
                pass
            except OSError as error:
                LOG.warning('Could not remove the lock file of %s: %s', name, error)
