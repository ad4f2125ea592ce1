"""os-retype, os-migrate_volume and os-migrate_volume_completion at the API: what they
write and cast, and every refusal with Cinder's code and body, nothing written then."""

import pytest

from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from tests.unit.api.conftest import add_service
from tests.unit.api.snapshot_fixtures import add_snapshot
from tests.unit.api.type_fixtures import user
from tests.unit.api.volume_fixtures import action, add_volume, fault, usages

RETYPE_REFUSED = (
    'Invalid volume: Retype needs volume to be in available or in-use state, not be part of '
    'an active migration or a consistency group, requested type has to be different that '
    'the one from the volume, and for in-use volumes front-end qos specs cannot change.')


def _migrate_refused(volume_id):
    return (f'Invalid volume: Volume {volume_id} status must be available or in-use, must not '
            'be migrating, have snapshots, be replicated, be part of a group and destination '
            'host/cluster must be different than the current one')


def _row(db, volume_id):
    return db_volumes.get(db, volume_id=volume_id)


@pytest.fixture
def gold(seeded):
    return db_types.create(seeded, name='gold', extra_specs={'volume_backend_name': 'b2'})


@pytest.fixture
def dest(seeded):
    return add_service(seeded, host='node@b2')


# --- os-retype ------------------------------------------------------------------------

def test_retype_reserves_per_type_quota_and_asks_the_scheduler(vclient, db, rpc, gold):
    volume = add_volume(db, size=2)
    resp = action(vclient, volume.id, {'os-retype': {'new_type': 'gold',
                                                     'migration_policy': 'on-demand'}})
    assert resp.status_code == 202
    row = _row(db, volume.id)
    assert (row.status, row.previous_status) == ('retyping', 'available')
    (method, kwargs), = rpc.scheduler.calls
    spec = kwargs['request_spec']
    assert (method, spec['migration_policy'], spec['volume_type']['id']) == (
        'retype', 'on-demand', gold.id)
    assert len(spec['quota_reservations']) == 2 and len(spec['old_reservations']) == 2
    assert usages(db)['volumes_gold'] == (0, 1) and usages(db)['gigabytes_gold'] == (0, 2)


def test_retype_by_id_from_a_member_of_the_project(kclient, db, rpc, gold):
    volume = add_volume(db, project='p1')
    resp = action(kclient, volume.id, {'os-retype': {'new_type': gold.id}},
                  headers=user(project='p1'))
    assert resp.status_code == 202 and _row(db, volume.id).status == 'retyping'


@pytest.mark.parametrize('body, message', [
    ({'os-retype': {}}, "Invalid input for field/attribute os-retype. Value: {}. 'new_type' "
                        'is a required property'),
    ({'os-retype': {'new_type': 'gold', 'migration_policy': 'always'}},
     "Invalid input for field/attribute migration_policy. Value: always. 'always' is not one "
     "of ['on-demand', 'never']"),
])
def test_retype_bad_bodies_are_400(vclient, db, rpc, gold, body, message):
    volume = add_volume(db)
    assert fault(action(vclient, volume.id, body)) == (400, message)
    assert _row(db, volume.id).status == 'available' and rpc.scheduler.calls == []


def test_retype_to_an_unknown_type_is_404(vclient, db, rpc):
    volume = add_volume(db)
    resp = action(vclient, volume.id, {'os-retype': {'new_type': 'nope'}})
    assert fault(resp) == (404, 'Volume type with name nope could not be found.')
    assert _row(db, volume.id).status == 'available' and usages(db) == {}


@pytest.mark.parametrize('status, type_name', [
    ('available', '__DEFAULT__'),   # the type it has
    ('error', 'gold'),              # not available or in-use
    ('maintenance', 'gold'),
])
def test_retype_refused_by_the_cas_rolls_the_quota_back(vclient, db, rpc, gold, status,
                                                       type_name):
    volume = add_volume(db, status=status)
    resp = action(vclient, volume.id, {'os-retype': {'new_type': type_name}})
    assert fault(resp) == (400, RETYPE_REFUSED)
    assert _row(db, volume.id).status == status and rpc.scheduler.calls == []
    assert all(reserved == 0 for _, reserved in usages(db).values())


def test_retype_of_a_migrating_volume_is_refused(vclient, db, rpc, gold):
    volume = add_volume(db, migration_status='migrating')
    assert fault(action(vclient, volume.id, {'os-retype': {'new_type': 'gold'}})) == (
        400, RETYPE_REFUSED)


def test_retype_changing_multiattach_of_an_in_use_volume_is_400(vclient, db, rpc):
    db_types.create(db, name='shared', extra_specs={'multiattach': '<is> True'})
    volume = add_volume(db, status='in-use')
    resp = action(vclient, volume.id, {'os-retype': {'new_type': 'shared'}})
    assert fault(resp) == (400, 'Invalid input received: Invalid volume_type passed, retypes '
                                'affecting multiattach are only allowed on available volumes, '
                                'the specified volume however currently has a status of: '
                                'in-use.')
    assert _row(db, volume.id).status == 'in-use' and usages(db) == {}


def test_retype_of_an_available_volume_to_multiattach_marks_it(vclient, db, rpc):
    db_types.create(db, name='shared', extra_specs={'multiattach': '<is> True'})
    volume = add_volume(db)
    assert action(vclient, volume.id, {'os-retype': {'new_type': 'shared'}}).status_code == 202
    assert _row(db, volume.id).multiattach is True


# --- os-migrate_volume ------------------------------------------------------------------

def test_migrate_starts_and_asks_the_scheduler(vclient, db, rpc, dest):
    volume = add_volume(db)
    resp = action(vclient, volume.id, {'os-migrate_volume': {
        'host': 'node@b2#b2', 'force_host_copy': 'true', 'lock_volume': True}})
    assert resp.status_code == 202
    row = _row(db, volume.id)
    assert (row.status, row.previous_status, row.migration_status) == (
        'maintenance', 'available', 'starting')
    (method, kwargs), = rpc.scheduler.calls
    assert (method, kwargs['backend'], kwargs['force_host_copy']) == (
        'migrate_volume', 'node@b2#b2', True)


def test_migrate_in_use_with_lock_keeps_in_use(vclient, db, rpc, dest):
    volume = add_volume(db, status='in-use')
    assert action(vclient, volume.id, {'os-migrate_volume': {
        'host': 'node@b2', 'lock_volume': True}}).status_code == 202
    assert _row(db, volume.id).status == 'in-use'


def test_migrate_to_a_cluster_from_3_16(vclient, db, rpc):
    add_service(db, host='node@b2', cluster='c1@b2')
    volume = add_volume(db)
    resp = action(vclient, volume.id, {'os-migrate_volume': {'cluster': 'c1@b2'}},
                  version='3.16')
    assert resp.status_code == 202
    assert rpc.scheduler.calls[0][1]['backend'] == 'c1@b2'


@pytest.mark.parametrize('version, body, message', [
    (None, {}, "Invalid input for field/attribute os-migrate_volume. Value: {}. 'host' is a "
               'required property'),
    (None, {'host': 'node@b2', 'cluster': 'c1'},
     "Invalid input for field/attribute os-migrate_volume. Value: {'host': 'node@b2', "
     "'cluster': 'c1'}. Additional properties are not allowed ('cluster' was unexpected)"),
    ('3.16', {'host': 'node@b2', 'cluster': 'c1@b2'},
     'Invalid input received: One and only one of cluster and host must be set.'),
    ('3.16', {}, 'Invalid input received: One and only one of cluster and host must be set.'),
    (None, {'host': 'node@b2', 'lock_volume': 'maybe'},
     "Invalid input for field/attribute lock_volume."),
    (None, {'host': 'node@b9'}, "Invalid host: No available service named 'node@b9'"),
])
def test_migrate_bad_inputs_are_400_and_change_nothing(vclient, db, rpc, dest, version, body,
                                                       message):
    volume = add_volume(db)
    code, text = fault(action(vclient, volume.id, {'os-migrate_volume': body},
                              version=version))
    assert code == 400 and text.startswith(message)
    row = _row(db, volume.id)
    assert (row.status, row.migration_status) == ('available', None)
    assert rpc.scheduler.calls == []


def test_migrate_to_a_down_service_is_400(vclient, db, rpc):
    add_service(db, host='node@b3', heartbeat_age=3600)
    volume = add_volume(db)
    assert fault(action(vclient, volume.id, {'os-migrate_volume': {'host': 'node@b3'}})) == (
        400, "Invalid host: No available service named 'node@b3'")


@pytest.mark.parametrize('values', [
    {'status': 'error'}, {'migration_status': 'migrating'}, {'host': 'node@b2#b2'},
    {'replication_status': 'enabled'}, {'group_id': 'g1'},
])
def test_migrate_refused_by_the_cas_is_cinders_400(vclient, db, rpc, dest, values):
    volume = add_volume(db, **values)
    resp = action(vclient, volume.id, {'os-migrate_volume': {'host': 'node@b2#b2'}})
    assert fault(resp) == (400, _migrate_refused(volume.id))
    assert _row(db, volume.id).status == values.get('status', 'available')
    assert rpc.scheduler.calls == []


def test_migrate_of_a_volume_with_snapshots_is_refused(vclient, db, rpc, dest):
    volume = add_volume(db)
    add_snapshot(db, volume)
    assert fault(action(vclient, volume.id, {'os-migrate_volume': {'host': 'node@b2'}})) == (
        400, _migrate_refused(volume.id))


def test_migrate_is_admin_only(kclient, db, rpc, dest):
    volume = add_volume(db, project='p1')
    resp = action(kclient, volume.id, {'os-migrate_volume': {'host': 'node@b2'}},
                  headers=user(project='p1'))
    assert resp.status_code == 403
    assert _row(db, volume.id).migration_status is None


# --- os-migrate_volume_completion -------------------------------------------------------

class Answering:
    """The volume client, answering migrate_volume_completion with the source id."""

    def __init__(self):
        self.calls = []

    def migrate_volume_completion(self, ctx, **kwargs):
        self.calls.append(kwargs)
        return kwargs['volume_id']


def test_completion_goes_to_the_source_backend(vclient, db, rpc):
    rpc.volume = Answering()
    volume = add_volume(db, status='retyping', migration_status='migrating')
    target = add_volume(db, host='node@b2#b2', migration_status=f'target:{volume.id}')
    resp = action(vclient, volume.id, {'os-migrate_volume_completion': {
        'new_volume': target.id}})
    assert resp.status_code == 200 and resp.json == {'save_volume_id': volume.id}
    assert rpc.volume.calls == [{'volume_id': volume.id, 'target_id': target.id,
                                 'error': False, 'host': 'node@fake#pool',
                                 'cluster_name': None}]


def test_completion_outside_a_migration_keeps_the_new_volume(vclient, db, rpc):
    volume, other = add_volume(db), add_volume(db)
    resp = action(vclient, volume.id, {'os-migrate_volume_completion': {
        'new_volume': other.id}})
    assert resp.json == {'save_volume_id': other.id} and rpc.volume.calls == []


@pytest.mark.parametrize('source, target, message', [
    ('migrating', None, 'Invalid volume: Destination volume not mid-migration.'),
    (None, 'target:x', 'Invalid volume: Source volume not mid-migration.'),
    ('migrating', 'target:someone-else',
     'Invalid volume: Destination has migration_status target:someone-else, expected '
     'target:{id}.'),
])
def test_completion_of_an_unmatched_pair_is_400(vclient, db, rpc, source, target, message):
    volume = add_volume(db, migration_status=source)
    other = add_volume(db, migration_status=target)
    resp = action(vclient, volume.id, {'os-migrate_volume_completion': {
        'new_volume': other.id}})
    assert fault(resp) == (400, message.format(id=volume.id)) and rpc.volume.calls == []


def test_completion_with_an_unknown_new_volume_is_404(vclient, db, rpc):
    volume = add_volume(db, migration_status='migrating')
    missing = '00000000-0000-0000-0000-000000000001'
    resp = action(vclient, volume.id, {'os-migrate_volume_completion': {'new_volume': missing}})
    assert fault(resp) == (404, f'Volume {missing} could not be found.')


def test_completion_without_new_volume_is_400(vclient, db, rpc):
    volume = add_volume(db, migration_status='migrating')
    code, text = fault(action(vclient, volume.id, {'os-migrate_volume_completion': {}}))
    assert code == 400 and "'new_volume' is a required property" in text
