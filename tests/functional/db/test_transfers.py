"""Volume transfers racing on real PostgreSQL and MariaDB.

Two requests released together by a barrier, each on its own connection: two accepts of one
transfer (into one project or two), an accept against a delete (of an encrypted volume too,
its key moved by the fixed-key manager), two offers of one volume.
Exactly one wins, the other gets Cinder's 4xx, and the quota usage is counted once.
"""

import uuid

import pytest
import sqlalchemy as sa

from cinderlike import conf as cl_conf
from cinderlike import exception, key_manager, notifications, quota
from cinderlike.api.operations import transfers as operations
from cinderlike.context import RequestContext
from cinderlike.db import transfers as db_transfers
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import QuotaUsage, Snapshot, Transfer
from tests.fixtures.race import race, split

ATTEMPTS = 5


@pytest.fixture
def conf():
    config = cl_conf.new_conf()
    config([])
    return config


def _project():
    return uuid.uuid4().hex


def _ctx(project_id):
    return RequestContext(user_id=f'user-{project_id[:6]}', project_id=project_id,
                          roles=['member', 'reader'])


def _usage(db, project_id) -> dict[str, tuple[int, int]]:
    with db.reader() as s:
        return {u.resource: (u.in_use, u.reserved) for u in s.scalars(
            sa.select(QuotaUsage).where(QuotaUsage.project_id == project_id))}


def _offer(db, conf, *, snapshots=0, key_id=None):
    """A donor project's 2G volume (usage counted) with *snapshots*, offered; (ids, key).

    *key_id*: the volume and its snapshots are encrypted with it (offered at 3.70)."""
    donor = _project()
    type_id = db_types.get_by_name(db, name='__DEFAULT__').id
    deltas = quota.volume_deltas(size=2, volume_type_name='__DEFAULT__')
    if snapshots:
        deltas.update(snapshots=snapshots, snapshots___DEFAULT__=snapshots,
                      gigabytes=2 + 2 * snapshots, gigabytes___DEFAULT__=2 + 2 * snapshots)
    quota.commit(db, None, quota.reserve(db, None, conf=conf, project_id=donor, deltas=deltas))
    volume = db_volumes.create(db, values={
        'status': 'available', 'size': 2, 'host': 'node@fake#pool', 'project_id': donor,
        'user_id': 'donor', 'volume_type_id': type_id, 'attach_status': 'detached',
        'encryption_key_id': key_id})
    with db.writer() as s:
        s.add_all(Snapshot(id=str(uuid.uuid4()), volume_id=volume.id, status='available',
                           project_id=donor, user_id='donor', volume_size=2,
                           volume_type_id=type_id, encryption_key_id=key_id)
                  for _ in range(snapshots))
    notifier = notifications.VolumeNotifier(conf, db, host='api')
    transfer, key = operations.create(conf, db, _ctx(donor), volume=volume, name='race',
                                      no_snapshots=False, allow_encrypted=key_id is not None,
                                      notifier=notifier)
    return donor, volume.id, transfer.id, key


def _accept(db, conf, project_id, transfer_id, key):
    notifier = notifications.VolumeNotifier(conf, db, host='api')
    return lambda: operations.accept(conf, db, _ctx(project_id), transfer_id=transfer_id,
                                     auth_key=key, notifier=notifier)


def _counted_once(db, winner_project, donor, *, snapshots=0):
    gigabytes = 2 + 2 * snapshots
    expected = {'volumes': (1, 0), 'volumes___DEFAULT__': (1, 0),
                'gigabytes': (gigabytes, 0), 'gigabytes___DEFAULT__': (gigabytes, 0)}
    if snapshots:
        expected.update(snapshots=(snapshots, 0), snapshots___DEFAULT__=(snapshots, 0))
    assert _usage(db, winner_project) == expected
    assert _usage(db, donor) == {k: (0, 0) for k in expected}


def _lost_race(error, transfer_id, volume_id):
    """The loser's answer: Cinder's 400 when it reached the volume, 404 when the winner had
    already closed the transfer before the loser looked it up."""
    if isinstance(error, exception.TransferNotFound):
        assert error.code == 404
        assert error.msg == f'Transfer {transfer_id} could not be found.'
        return
    assert isinstance(error, exception.InvalidVolume) and error.code == 400, repr(error)
    assert error.msg == (f'Invalid volume: Transfer {transfer_id}: Volume id {volume_id} '
                         'expected in awaiting-transfer state.')


@pytest.mark.parametrize('attempt', range(ATTEMPTS))
def test_two_accepts_into_one_project_one_wins(db, conf, attempt):
    donor, volume_id, transfer_id, key = _offer(db, conf, snapshots=1)
    taker = _project()
    winners, losers = split(race(_accept(db, conf, taker, transfer_id, key),
                                 _accept(db, conf, taker, transfer_id, key)))
    assert len(winners) == 1 and len(losers) == 1
    _lost_race(losers[0], transfer_id, volume_id)
    volume = db_volumes.get(db, volume_id=volume_id)
    assert (volume.status, volume.project_id) == ('available', taker)
    _counted_once(db, taker, donor, snapshots=1)


@pytest.mark.parametrize('attempt', range(ATTEMPTS))
def test_two_projects_accepting_one_transfer_one_wins(db, conf, attempt):
    donor, volume_id, transfer_id, key = _offer(db, conf)
    first, second = _project(), _project()
    results = race(_accept(db, conf, first, transfer_id, key),
                   _accept(db, conf, second, transfer_id, key))
    winners, losers = split(results)
    assert len(winners) == 1
    _lost_race(losers[0], transfer_id, volume_id)
    winner, loser = (first, second) if results[1] is losers[0] else (second, first)
    volume = db_volumes.get(db, volume_id=volume_id)
    assert (volume.status, volume.project_id) == ('available', winner)
    _counted_once(db, winner, donor)
    assert not any(in_use or reserved for in_use, reserved in _usage(db, loser).values())
    with db.reader() as s:
        row = s.get(Transfer, transfer_id)
    assert (row.deleted, row.accepted, row.destination_project_id) == (True, True, winner)


@pytest.mark.parametrize('attempt', range(ATTEMPTS))
def test_accept_against_delete_one_wins(db, conf, attempt):
    donor, volume_id, transfer_id, key = _offer(db, conf)
    taker = _project()
    transfer = db_transfers.get(db, transfer_id=transfer_id)
    results = race(_accept(db, conf, taker, transfer_id, key),
                   lambda: db_transfers.destroy(db, transfer=transfer))
    winners, losers = split(results)
    assert len(winners) == 1 and len(losers) == 1
    volume = db_volumes.get(db, volume_id=volume_id)
    if results[0] is losers[0]:
        _lost_race(losers[0], transfer_id, volume_id)
        assert (volume.status, volume.project_id) == ('available', donor)
        assert _usage(db, donor)['volumes'] == (1, 0)
        assert not any(in_use for in_use, _r in _usage(db, taker).values())
    else:
        assert isinstance(losers[0], exception.TransferNotFound) and losers[0].code == 404
        assert (volume.status, volume.project_id) == ('available', taker)
        _counted_once(db, taker, donor)


@pytest.mark.parametrize('attempt', range(ATTEMPTS))
def test_an_encrypted_volume_accepted_against_its_withdrawal_keeps_its_key(db, conf, attempt):
    conf.set_override('backend', key_manager.CONF_KEY_MANAGERS[0], group='key_manager')
    conf.set_override('fixed_key', '0123456789abcdef' * 4, group='key_manager')
    donor, volume_id, transfer_id, key = _offer(db, conf, snapshots=1,
                                                key_id=key_manager.FIXED_KEY_ID)
    taker = _project()
    transfer = db_transfers.get(db, transfer_id=transfer_id)
    volume = db_volumes.get(db, volume_id=volume_id)
    notifier = notifications.VolumeNotifier(conf, db, host='api')
    results = race(_accept(db, conf, taker, transfer_id, key),
                   lambda: operations.delete(conf, db, _ctx(donor), transfer=transfer,
                                             volume=volume, notifier=notifier))
    winners, losers = split(results)
    assert len(winners) == 1 and len(losers) == 1
    owner = donor if results[0] is losers[0] else taker
    if owner == donor:
        _lost_race(losers[0], transfer_id, volume_id)
    else:
        assert isinstance(losers[0], exception.TransferNotFound)
        _counted_once(db, taker, donor, snapshots=1)
    volume = db_volumes.get(db, volume_id=volume_id)
    with db.reader() as s:
        snapshot_keys = set(s.scalars(sa.select(Snapshot.encryption_key_id).where(
            Snapshot.volume_id == volume_id)))
    assert (volume.status, volume.project_id, volume.encryption_key_id) == (
        'available', owner, key_manager.FIXED_KEY_ID)
    assert snapshot_keys == {key_manager.FIXED_KEY_ID}


@pytest.mark.parametrize('attempt', range(ATTEMPTS))
def test_two_offers_of_one_volume_one_wins(db, conf, attempt):
    donor = _project()
    type_id = db_types.get_by_name(db, name='__DEFAULT__').id
    volume = db_volumes.create(db, values={
        'status': 'available', 'size': 1, 'project_id': donor, 'volume_type_id': type_id})

    def offer():
        return db_transfers.create(db, values={
            'volume_id': volume.id, 'display_name': None, 'salt': 's', 'crypt_hash': 'h',
            'no_snapshots': False, 'source_project_id': donor})
    winners, losers = split(race(offer, offer))
    assert len(winners) == 1 and isinstance(losers[0], exception.InvalidVolume)
    assert losers[0].msg.endswith(f'Volume id {volume.id} expected in available state.')
    with db.reader() as s:
        rows = s.scalars(sa.select(Transfer.id).where(Transfer.volume_id == volume.id)).all()
    assert rows == [winners[0].id]
    assert db_volumes.get(db, volume_id=volume.id).status == 'awaiting-transfer'


def test_crossing_accepts_between_two_projects_do_not_deadlock(db, conf):
    """A→B and B→A at once lock the usage rows of A and B in the same order."""
    for _attempt in range(ATTEMPTS):
        a_project, a_volume, a_transfer, a_key = _offer(db, conf)
        b_project, b_volume, b_transfer, b_key = _offer(db, conf)
        results = race(_accept(db, conf, b_project, a_transfer, a_key),
                       _accept(db, conf, a_project, b_transfer, b_key))
        assert split(results)[1] == []
        assert db_volumes.get(db, volume_id=a_volume).project_id == b_project
        assert db_volumes.get(db, volume_id=b_volume).project_id == a_project
        assert _usage(db, a_project)['volumes'] == _usage(db, b_project)['volumes'] == (1, 0)
