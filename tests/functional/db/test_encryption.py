"""Volume type encryption on real PostgreSQL and MariaDB: a change of a type's encryption
raced against a volume create of that type (through the API) never leaves a volume whose
key disagrees with its type, and the loser gets Cinder's 400 with nothing written; os-hosts
counts from the database."""

import threading
import uuid

import pytest
import sqlalchemy as sa
from falcon import testing

from cinderlike import conf as cl_conf
from cinderlike import exception
from cinderlike.api.app import create_app
from cinderlike.db import default_types as db_default_types
from cinderlike.db import encryption as db_encryption
from cinderlike.db import serializable
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Service, Volume, VolumeType, VolumeTypeExtraSpecs
from cinderlike.key_manager import FIXED_KEY_ID
from tests.fixtures.daemons import wait_for
from tests.fixtures.race import race, split
from tests.unit.api.volume_fixtures import RecordingRPC, usages

LUKS = {'provider': 'luks', 'cipher': 'aes-xts-plain64', 'key_size': 256,
        'control_location': 'front-end'}


@pytest.fixture
def rpc():
    return RecordingRPC()


@pytest.fixture
def client(db, rpc):
    config = cl_conf.new_conf()
    config([])
    config.set_override('auth_strategy', 'noauth')
    config.set_override('backend', 'cinder.keymgr.conf_key_mgr.ConfKeyManager',
                        group='key_manager')
    config.set_override('fixed_key', '00' * 32, group='key_manager')
    return testing.TestClient(create_app(config, db=db, rpc=rpc))


def _headers(project):
    return {'X-Auth-Token': f'admin:{project}'}


def _volumes_of(db, type_id) -> list[Volume]:
    with db.reader() as session:
        return list(session.scalars(sa.select(Volume).where(
            Volume.volume_type_id == type_id, Volume.deleted.is_(False))))


def _create_volume(client, project, type_id):
    """A create naming *type_id*; None: the project's default type (set to it by the test)."""
    volume = {'size': 1} if type_id is None else {'size': 1, 'volume_type': type_id}
    return lambda: client.simulate_post('/v3/volumes', headers=_headers(project),
                                        json={'volume': volume})


def _warm(client, project, type_id) -> None:
    """Give the project its usage rows of the type (a volume created, then deleted before
    any scheduler placed it), so that its next create is one transaction."""
    created = _create_volume(client, project, type_id)()
    assert created.status_code == 202, created.json
    deleted = client.simulate_delete(f'/v3/volumes/{created.json["volume"]["id"]}',
                                     headers=_headers(project))
    assert deleted.status_code == 202


def _assert_agrees(db, type_id, project):
    """Every live volume of the type has a key exactly when the type is encrypted."""
    encrypted = db_encryption.get(db, type_id=type_id) is not None
    volumes = _volumes_of(db, type_id)
    assert all((v.encryption_key_id is not None) == encrypted for v in volumes)
    assert usages(db, project).get('volumes', (0, 0)) == (len(volumes), 0)


@pytest.mark.parametrize('attempt', range(4))
def test_encryption_delete_against_volume_create(db, client, attempt):
    project = uuid.uuid4().hex
    vtype = db_types.create(db, name=f'enc-del-{attempt}')
    db_encryption.create(db, type_id=vtype.id, specs=LUKS)
    url = f'/v3/types/{vtype.id}/encryption/x'
    created, deleted = race(_create_volume(client, project, vtype.id),
                            lambda: client.simulate_delete(url, headers=_headers(project)))
    if deleted.status_code == 400:
        assert deleted.json['badRequest']['message'] == (
            'Cannot delete encryption specs. Volume type in use.')
        assert created.status_code == 202
        volume, = _volumes_of(db, vtype.id)
        assert volume.encryption_key_id == FIXED_KEY_ID
    else:
        assert deleted.status_code == 202
        # the create either came after (an unencrypted volume) or was refused
        if created.status_code != 202:
            assert created.status_code == 400, created.json
            assert _volumes_of(db, vtype.id) == []
    _assert_agrees(db, vtype.id, project)


@pytest.mark.parametrize('named', [True, False], ids=['named-type', 'project-default'])
@pytest.mark.parametrize('warm', [False, True], ids=['first-use', 'one-transaction'])
@pytest.mark.parametrize('attempt', range(4))
def test_encryption_create_against_volume_create(db, client, attempt, warm, named):
    project = uuid.uuid4().hex
    vtype = db_types.create(db, name=f'enc-new-{attempt}-{warm}-{named}')
    if not named:
        db_default_types.set_default(db, project_id=project, type_id=vtype.id)
    if warm:
        _warm(client, project, vtype.id)
    url = f'/v3/types/{vtype.id}/encryption'
    created, encrypted = race(
        _create_volume(client, project, vtype.id if named else None),
        lambda: client.simulate_post(url, headers=_headers(project), json={'encryption': LUKS}))
    if encrypted.status_code == 400:
        assert encrypted.json['badRequest']['message'] == (
            'Cannot create encryption specs. Volume type in use.')
        assert db_encryption.get(db, type_id=vtype.id) is None
    else:
        assert encrypted.status_code == 200
    assert created.status_code in (202, 400)
    _assert_agrees(db, vtype.id, project)


def test_concurrent_encryption_creates_one_wins(db):
    vtype = db_types.create(db, name='enc-twice')
    winners, losers = split(race(
        *[lambda: db_encryption.create(db, type_id=vtype.id, specs=LUKS)] * 4))
    assert len(winners) == 1 and len(losers) == 3
    assert all(isinstance(e, exception.VolumeTypeEncryptionExists) for e in losers)


def _waits_for_a_lock(db) -> bool:
    """Some other transaction of *db*'s server waits for a row lock.

    NOTE(mariadb): a locking read of a row by its primary key waits inside the optimizer
    (processlist state `Statistics`), where innodb_trx does not list it; a FOR UPDATE still
    running on another connection is that wait (nothing else here would take so long).
    """
    with db.reader() as s:
        if s.bind.dialect.name == 'postgresql':
            return bool(s.scalar(sa.text(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")))
        return bool(s.scalar(sa.text(
            "SELECT (SELECT count(*) FROM information_schema.innodb_trx"
            "        WHERE trx_state = 'LOCK WAIT')"
            "     + (SELECT count(*) FROM information_schema.processlist"
            "        WHERE command = 'Query' AND id <> CONNECTION_ID()"
            "        AND info LIKE '%FOR UPDATE%')")))


@pytest.mark.parametrize('change', ['update', 'delete'])
def test_an_encryption_change_crossing_a_type_rename_ends_as_if_it_ran_alone(db, change,
                                                                             monkeypatch):
    """A rename reads the type row shared (SERIALIZABLE) and then writes it; an encryption
    change waiting for that row meanwhile is a deadlock's victim on InnoDB, and runs again
    instead of answering 503."""
    vtype = db_types.create(db, name=f'rename-{uuid.uuid4()}')
    db_encryption.create(db, type_id=vtype.id, specs=LUKS)
    reruns = []
    monkeypatch.setattr(serializable, 'backoff', reruns.append)
    outcome = {}

    def encryption_change():
        try:
            if change == 'update':
                db_encryption.update(db, type_id=vtype.id, specs={'key_size': 512})
            else:
                db_encryption.delete(db, type_id=vtype.id)
            outcome['done'] = True
        except Exception as error:  # noqa: BLE001 - the assertion below names it
            outcome['error'] = error

    thread = threading.Thread(target=encryption_change)
    with db.writer() as s:
        # NOTE(victim): InnoDB aborts the lighter transaction; the rows written first make
        # the rename the heavier one, as a rename that moved quota rows is.
        s.connection(execution_options={'isolation_level': 'SERIALIZABLE'})
        for key in range(20):
            s.add(VolumeTypeExtraSpecs(volume_type_id=vtype.id, key=f'k{key}', value='v'))
        s.flush()
        s.execute(sa.select(VolumeType.id).where(VolumeType.id == vtype.id))
        s.execute(sa.select(VolumeType.id).where(VolumeType.id == vtype.id)
                  .with_for_update(read=True))
        thread.start()
        wait_for(lambda: _waits_for_a_lock(db), timeout=60)
        s.execute(sa.update(VolumeType).where(VolumeType.id == vtype.id)
                  .values(description='renamed'))
    thread.join(timeout=30)
    assert outcome == {'done': True}
    if db.engine.dialect.name != 'postgresql':
        assert reruns == [1]
    stored = db_encryption.get(db, type_id=vtype.id)
    assert (stored is None) if change == 'delete' else (stored.key_size == 512)


def test_an_encrypted_volume_and_its_metadata(db, client):
    project = uuid.uuid4().hex
    vtype = db_types.create(db, name='enc-meta')
    db_encryption.create(db, type_id=vtype.id, specs=LUKS)
    resp = _create_volume(client, project, vtype.id)()
    assert resp.status_code == 202 and resp.json['volume']['encrypted'] is True
    shown = client.simulate_get(f"/v3/volumes/{resp.json['volume']['id']}/encryption",
                                headers=_headers(project))
    assert shown.json == {'encryption_key_id': FIXED_KEY_ID, **LUKS}


def test_os_hosts_show_counts_from_the_database(db, client):
    host = f'node-{uuid.uuid4().hex[:8]}'
    project = uuid.uuid4().hex
    type_id = db_types.get_by_name(db, name='__DEFAULT__').id
    with db.writer() as session:
        session.add(Service(host=f'{host}@file', binary='cinder-volume',
                            topic='cinder-volume', availability_zone='nova'))
    volumes = [db_volumes.create(db, values={
        'status': 'available', 'size': size, 'host': f'{host}@file#pool',
        'project_id': project, 'volume_type_id': type_id}) for size in (2, 3)]
    db_snapshots.create(db, values={'volume_id': volumes[0].id, 'project_id': project,
                                    'volume_size': 2, 'status': 'available',
                                    'volume_type_id': type_id})
    resp = client.simulate_get(f'/v3/os-hosts/{host}', headers=_headers(project))
    assert resp.json == {'host': [
        {'resource': {'host': host, 'project': '(total)', 'volume_count': '2',
                      'total_volume_gb': '5', 'snapshot_count': '1',
                      'total_snapshot_gb': '2'}},
        {'resource': {'host': host, 'project': project, 'volume_count': '2',
                      'total_volume_gb': '5', 'snapshot_count': '1',
                      'total_snapshot_gb': '2'}}]}


@pytest.mark.parametrize('warm', [False, True], ids=['first-use', 'one-transaction'])
@pytest.mark.parametrize('attempt', range(3))
def test_type_delete_against_volume_create(db, client, attempt, warm):
    """The shared hold of a volume insert also keeps a type from being deleted under it."""
    project = uuid.uuid4().hex
    vtype = db_types.create(db, name=f'enc-gone-{attempt}-{warm}')
    if warm:
        _warm(client, project, vtype.id)
    created, deleted = race(_create_volume(client, project, vtype.id),
                            lambda: client.simulate_delete(f'/v3/types/{vtype.id}',
                                                           headers=_headers(project)))
    if deleted.status_code == 202:
        assert created.status_code == 404, created.json
        assert _volumes_of(db, vtype.id) == []
        assert usages(db, project).get('volumes', (0, 0)) == (0, 0)
    else:
        assert deleted.status_code == 400 and created.status_code == 202
        assert len(_volumes_of(db, vtype.id)) == 1
