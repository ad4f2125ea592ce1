"""cinderlike-api: send the cast that follows a request's committed writes, or undo them.

Every operation that casts writes its rows first (status, quota, the workers row) in one
transaction, then casts through send(). A cast the broker does not take (rpc.SEND_FAILURES:
MessageDeliveryFailure once `rpc_send_retries` ran out, MessagingTimeout, a refused
connection) leaves nobody to finish the operation: send() runs the operation's compensating
transaction and answers 503, so the caller finds things as they were. The undo is fenced on
what the request wrote (the workers row's epoch, the in-progress status): when it finds the
operation taken up, the message did get through and the request stands.
"""

from collections.abc import Callable

from oslo_log import log as logging

from cinderlike import exception, rpc
from cinderlike.db import settle as db_settle

LOG = logging.getLogger(__name__)


def send(cast: Callable[[], object], *, undo: Callable[[], bool], resource: str,
         resource_id: str, what: str):
    """*cast()*'s result; when it cannot be sent, *undo()* and TemporarilyUnavailable.

    *undo()* is one compensating transaction; it returns False when it found the operation
    taken up by a service (so the message went through after all). Any other error of the
    cast (a bug) is undone the same way and raised as it is (500).

    :raises TemporarilyUnavailable: the message was not sent and the request's writes are undone.
    """
    try:
        return cast()
    except Exception as error:
        if not _undo(error, undo, resource, resource_id, what):
            return None
        if not isinstance(error, rpc.SEND_FAILURES):
            raise
        raise _unavailable() from error


def call(method: Callable[[], object], *, undo: Callable[[], bool], resource: str,
         resource_id: str, what: str):
    """send() for an RPC call: *method()*'s answer, and what the service raised passes
    through untouched (it ran the operation and settled its own rows).

    A call whose answer was lost after a service took it up (the undo found it so) is
    re-raised: the outcome is the service's, the caller gets the broker's 503.
    :raises TemporarilyUnavailable: the call was not sent and the request's writes are undone.
    """
    try:
        return method()
    except rpc.SEND_FAILURES as error:
        if not _undo(error, undo, resource, resource_id, what):
            raise
        raise _unavailable() from error


def _undo(error, undo, resource: str, resource_id: str, what: str) -> bool:
    LOG.error('%(res)s %(id)s: %(what)s could not be sent (%(error)s); undoing the '
              'request', {'res': resource, 'id': resource_id, 'what': what, 'error': error})
    if undo():
        return True
    LOG.warning('%s %s: %s was taken up by a service all the same; the request stands',
                resource, resource_id, what)
    return False


def _unavailable() -> exception.TemporarilyUnavailable:
    return exception.TemporarilyUnavailable(
        'Service is unavailable at this time: the message broker cannot be reached; '
        'nothing was changed.')


def undone(settled: db_settle.Settled) -> bool:
    """Whether a compensating settle() wrote: FENCED or MOVED_ON mean a service has it."""
    return settled is db_settle.Settled.DONE
