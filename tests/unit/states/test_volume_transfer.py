"""The volume table's `transfer` action, for every status, from the table alone."""

import pytest

from cinderlike.states.volumes import TRANSITIONS, Status


@pytest.mark.parametrize('status', sorted(Status))
def test_only_an_available_volume_may_be_offered(status):
    assert TRANSITIONS['transfer'].allows(status) is (status == 'available')


def test_the_offer_waits_in_awaiting_transfer_and_always_lands_available():
    tr = TRANSITIONS['transfer']
    # accept finishes it (new owner), deleting the offer undoes it: both end available.
    assert (tr.in_progress, tr.on_success, tr.on_error) == (
        'awaiting-transfer', 'available', 'available')
    assert not tr.saves_previous and tr.guards == ()


@pytest.mark.parametrize('action', ['delete', 'extend', 'extend_attached', 'transfer'])
def test_an_awaiting_transfer_volume_is_refused_by(action):
    assert not TRANSITIONS[action].allows('awaiting-transfer')
