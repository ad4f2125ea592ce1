"""Every (status × action) pair of the backup table, and the volume/snapshot backup actions."""

import pytest

from cinderlike.states import machine
from cinderlike.states import snapshots as snapshot_states
from cinderlike.states import volumes as volume_states
from cinderlike.states.backups import CLEANABLE, RESET_STATUSES, TRANSITIONS, Status

EXPECTED_FROM = {
    'create': {'creating'},
    'delete': {'available', 'error'},
    'restore': {'available'},
}


@pytest.mark.parametrize('action', sorted(EXPECTED_FROM))
@pytest.mark.parametrize('status', sorted(Status))
def test_allowed_from_matches_cinder(action, status):
    assert TRANSITIONS[action].allows(status) is (status in EXPECTED_FROM[action])


@pytest.mark.parametrize('status', sorted(Status))
def test_force_delete_and_reset_take_any_status(status):
    assert TRANSITIONS['force_delete'].allows(status)
    assert TRANSITIONS['reset_status'].allows(status)


def test_outcomes_are_cinders():
    assert (TRANSITIONS['create'].on_success, TRANSITIONS['create'].on_error) == (
        'available', 'error')
    assert TRANSITIONS['delete'].guards == ('no_dependents',)
    assert TRANSITIONS['delete'].on_error == 'error'
    # A restore leaves the backup available whatever happens to the volume.
    assert (TRANSITIONS['restore'].on_success, TRANSITIONS['restore'].on_error) == (
        'available', 'available')
    assert RESET_STATUSES == ('available', 'error')
    assert CLEANABLE == {'creating', 'restoring', 'deleting'}


@pytest.mark.parametrize('status', sorted(volume_states.Status))
def test_volume_backup_actions(status):
    table = volume_states.TRANSITIONS
    assert table['backup'].allows(status) is (status == 'available')
    assert table['backup_in_use'].allows(status) is (status in ('available', 'in-use'))
    assert table['restore_backup'].allows(status) is (status == 'available')
    # A volume being backed up or restored cannot be deleted.
    if status in ('backing-up', 'restoring-backup'):
        assert not table['delete'].allows(status)


def test_volume_returns_to_where_it_was_and_a_failed_restore_is_error_restoring():
    table = volume_states.TRANSITIONS
    assert table['backup'].saves_previous and table['backup'].on_error == machine.PREVIOUS
    assert table['restore_backup'].on_error == 'error_restoring'
    assert snapshot_states.TRANSITIONS['backup'].in_progress == 'backing-up'


def test_describe_lists_every_action():
    text = machine.describe('backup', TRANSITIONS)
    assert all(f'| {action} |' in text for action in TRANSITIONS)
