"""409 Conflict: a live resource already has this name, id or access."""

from cinderlike.exception.base import CinderlikeException


class Conflict(CinderlikeException):
    """The resource's current state does not allow the request."""
    msg_fmt = 'Conflict.'
    code = 409
    safe = True


class VolumeTypeExists(Conflict):
    """A live volume type already has this name (or id)."""
    msg_fmt = 'Volume Type %(id)s already exists.'


class VolumeTypeAccessExists(Conflict):
    """The project already has access to the private type."""
    msg_fmt = ('Volume type access for %(volume_type_id)s / %(project_id)s combination '
               'already exists.')


class GroupTypeExists(Conflict):
    """A live group type already has this name (or id)."""
    msg_fmt = 'Group Type %(id)s already exists.'


class QoSSpecsExists(Conflict):
    """Live QoS specs already have this name."""
    msg_fmt = 'QoS Specs %(specs_id)s already exists.'
