"""Waiting for asynchronous volume work, whatever client fetched the state."""

from tests.functional.e2e.stack import wait_for

SETTLE = 60  # seconds for a volume to reach a steady status


def settle(fetch, *, until, what):
    """Poll fetch() until until(result) holds; returns that result."""
    def check():
        result = fetch()
        return result if until(result) else None
    return wait_for(check, timeout=SETTLE, what=what)
