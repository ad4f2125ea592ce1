"""Every (status × action) pair of the volume table, checked from the table alone."""

import pytest

from cinderlike.states import machine
from cinderlike.states.volumes import TRANSITIONS, Status

DELETABLE = {'available', 'error', 'error_restoring', 'error_extending', 'error_managing'}
EXPECTED_FROM = {
    'create': {'creating'},
    'delete': DELETABLE,
    'extend': {'available'},
    'extend_attached': {'available', 'in-use'},
}


@pytest.mark.parametrize('action', sorted(EXPECTED_FROM))
@pytest.mark.parametrize('status', sorted(Status))
def test_allowed_from_matches_cinder(action, status):
    assert TRANSITIONS[action].allows(status) is (status in EXPECTED_FROM[action])


@pytest.mark.parametrize('action', ['force_delete', 'reset_status'])
@pytest.mark.parametrize('status', sorted(Status))
def test_admin_actions_allow_any_status(action, status):
    assert TRANSITIONS[action].allows(status)


def test_delete_lands_in_deleting_and_fails_to_error_deleting():
    tr = TRANSITIONS['delete']
    assert (tr.in_progress, tr.on_error) == ('deleting', 'error_deleting')
    assert set(tr.guards) >= {'not_attached', 'no_snapshots'}


def test_extend_returns_to_previous_status():
    tr = TRANSITIONS['extend_attached']
    assert tr.saves_previous and tr.on_success == machine.PREVIOUS


def test_expected_text_is_sorted_for_messages():
    assert TRANSITIONS['extend_attached'].expected_text() == 'available, in-use'


def test_describe_lists_every_action():
    text = machine.describe('volume', TRANSITIONS)
    for action in TRANSITIONS:
        assert f'| {action} |' in text
