"""Attachment statuses (`volume_attachment.attach_status`) and their transitions (Cinder's).

An attachment is reserved by the API, connected by the volume service (attaching, with the
connector and the driver's connection info), completed by its consumer (attached) and
detached (detaching, then deleted). The volume's own status and attach_status follow from
its live attachments (`volume_status`), as Cinder's `_get_statuses_from_attachments`.
"""

import enum

from cinderlike.states.machine import ANY, Transition
from cinderlike.states.volumes import Status as VolumeStatus


class Status(enum.StrEnum):
    RESERVED = 'reserved'
    ATTACHING = 'attaching'
    ATTACHED = 'attached'
    DETACHING = 'detaching'
    ERROR_ATTACHING = 'error_attaching'
    ERROR_DETACHING = 'error_detaching'
    DETACHED = 'detached'
    DELETED = 'deleted'


S = Status

# The mode an attachment created before 3.54 (or without `mode`) records: the connector's
# mode decides, as in Cinder.
MODE_UNSET = 'null'
READ_ONLY = 'ro'
READ_WRITE = 'rw'

# Filters of GET /attachments (Cinder's allowed_filters); instance_id names instance_uuid.
FILTERS = ('volume_id', 'status', 'instance_id', 'attach_status')

TRANSITIONS: dict[str, Transition] = dict(
    # attachment_update: the volume service connects the host named by the connector.
    # Success leaves it attaching until its consumer completes it; error_attaching otherwise.
    connect=Transition(frozenset({S.RESERVED, S.ATTACHING, S.ATTACHED, S.ERROR_ATTACHING}),
                       S.ATTACHING, S.ATTACHING, S.ERROR_ATTACHING),
    # os-complete (3.44): the consumer attached it.
    complete=Transition(frozenset({S.ATTACHING, S.ATTACHED}), S.ATTACHED),
    # DELETE /attachments/{id} and os-detach: the connection is terminated, then the row goes.
    detach=Transition(frozenset({S.RESERVED, S.ATTACHING, S.ATTACHED, S.ERROR_ATTACHING,
                                 S.ERROR_DETACHING}), S.DETACHING, None, S.ERROR_DETACHING),
    # os-force_detach (admin): also from a detach that is stuck.
    force_detach=Transition(ANY, S.DETACHING, None, S.ERROR_DETACHING),
)

# How a volume's attach_status maps to its status when they differ (Cinder's
# ATTACH_STATUS_MAP); every other attach_status is also the volume's status.
_VOLUME_STATUS = {S.ATTACHED: VolumeStatus.IN_USE, S.DETACHED: VolumeStatus.AVAILABLE}

# NOTE(order): Cinder takes the alphabetically first status of the live, non-error
# attachments: attached > attaching > detaching > reserved.
_PRECEDENCE = sorted((S.ATTACHED, S.ATTACHING, S.DETACHING, S.RESERVED))


def volume_status(attachment_statuses) -> tuple[str, str]:
    """(volume status, volume attach_status) for the statuses of its live attachments."""
    present = set(attachment_statuses)
    attach_status = next((s for s in _PRECEDENCE if s in present), S.DETACHED)
    return str(_VOLUME_STATUS.get(attach_status, attach_status)), str(attach_status)


# Volume statuses the attachments decide; a volume in any other (extending, deleting,
# maintenance...) keeps it, and only its attach_status follows.
ATTACH_DRIVEN = frozenset({VolumeStatus.AVAILABLE, VolumeStatus.RESERVED,
                           VolumeStatus.ATTACHING, VolumeStatus.IN_USE,
                           VolumeStatus.DETACHING})
