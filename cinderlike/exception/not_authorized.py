"""401/403: the caller may not do this (Cinder answers 403)."""

from cinderlike.exception.base import CinderlikeException


class NotAuthorized(CinderlikeException):
    """The caller may not do this."""
    msg_fmt = 'Not authorized.'
    code = 403
    safe = True


class PolicyNotAuthorized(NotAuthorized):
    """oslo.policy refused the action."""
    msg_fmt = "Policy doesn't allow %(action)s to be performed."
