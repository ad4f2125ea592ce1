"""The attachment table and the volume statuses its attachments decide, from the tables."""

import pytest

from cinderlike.states import attachments as states
from cinderlike.states.attachments import TRANSITIONS, Status
from cinderlike.states.volumes import TRANSITIONS as VOLUME_TRANSITIONS
from cinderlike.states.volumes import Status as VolumeStatus

EXPECTED_FROM = {
    'connect': {'reserved', 'attaching', 'attached', 'error_attaching'},
    'complete': {'attaching', 'attached'},
    'detach': {'reserved', 'attaching', 'attached', 'error_attaching', 'error_detaching'},
}


@pytest.mark.parametrize('action', sorted(EXPECTED_FROM))
@pytest.mark.parametrize('status', sorted(Status))
def test_allowed_from(action, status):
    assert TRANSITIONS[action].allows(status) is (status in EXPECTED_FROM[action])


@pytest.mark.parametrize('status', sorted(Status))
def test_force_detach_allows_any_status(status):
    assert TRANSITIONS['force_detach'].allows(status)


@pytest.mark.parametrize('statuses, expected', [
    ([], ('available', 'detached')),
    (['reserved'], ('reserved', 'reserved')),
    (['attaching'], ('attaching', 'attaching')),
    (['attached'], ('in-use', 'attached')),
    (['detaching'], ('detaching', 'detaching')),
    (['error_attaching'], ('available', 'detached')),
    (['error_detaching', 'reserved'], ('reserved', 'reserved')),
    (['reserved', 'attached', 'detaching'], ('in-use', 'attached')),
    (['reserved', 'attaching'], ('attaching', 'attaching')),
    (['detaching', 'reserved'], ('detaching', 'detaching')),
])
def test_volume_status_follows_cinders_precedence(statuses, expected):
    assert states.volume_status(statuses) == expected


VOLUME_FROM = {
    'reserve_attachment': {'available', 'downloading'},
    'reserve_attachment_multiattach': {'available', 'in-use', 'downloading'},
    'reserve': {'available'},
    'reserve_multiattach': {'available', 'in-use'},
    'unreserve': {'attaching'},
    'begin_detaching': {'in-use'},
    'roll_detaching': {'detaching'},
    'attach': {'available', 'attaching', 'reserved'},
    'attach_multiattach': {'available', 'attaching', 'reserved', 'in-use'},
}


@pytest.mark.parametrize('action', sorted(VOLUME_FROM))
@pytest.mark.parametrize('status', sorted(VolumeStatus))
def test_volume_attach_actions_allowed_from(action, status):
    assert VOLUME_TRANSITIONS[action].allows(status) is (status in VOLUME_FROM[action])


def test_multiattach_actions_are_guarded_and_begin_detaching_needs_attached():
    assert VOLUME_TRANSITIONS['reserve_attachment_multiattach'].guards == ('multiattach',)
    assert VOLUME_TRANSITIONS['reserve_multiattach'].guards == ('multiattach',)
    assert set(VOLUME_TRANSITIONS['begin_detaching'].guards) == {'attached',
                                                                 'no_migration_running'}
