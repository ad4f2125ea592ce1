"""Self-fencing of a clustered service (beyond Cinder): once its heartbeat has failed for longer
than `service_down_time`, its peers count it down and take its work over, so it must stop
taking new work until a heartbeat succeeds again. service.py drives this from its heartbeats.
"""

import time


class HeartbeatFence:
    """Tracks heartbeat outcomes and says when to stop and when to resume consuming work."""

    def __init__(self, *, down_time, clock=time.monotonic):
        self._down_time = down_time
        self._clock = clock
        self._last_ok = clock()
        self.fenced = False

    def failed(self) -> bool:
        """A heartbeat failed; True when this one crossed service_down_time (fence now)."""
        if self.fenced or self._clock() - self._last_ok <= self._down_time():
            return False
        self.fenced = True
        return True

    def succeeded(self) -> bool:
        """A heartbeat landed; True when we were fenced (resume now)."""
        self._last_ok = self._clock()
        was, self.fenced = self.fenced, False
        return was
