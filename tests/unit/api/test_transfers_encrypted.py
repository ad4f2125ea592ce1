"""Transfers of encrypted volumes (3.70): offered, withdrawn and accepted with their key
moved by the key manager (the fixed key keeps its id); refused before 3.70 and, when the
key manager fails, answered 500 with nothing left behind."""

import pytest
import sqlalchemy as sa

from cinderlike import key_manager
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Snapshot
from cinderlike.key_manager import FIXED_KEY_ID
from tests.unit.api.test_volumes_encrypted import CONF_KEY_MANAGER
from tests.unit.api.transfer_fixtures import (
    DONOR,
    TAKER,
    accept,
    add_snapshot,
    create,
    member,
    owned_volume,
    taker,
    transfer_rows,
    used,
)
from tests.unit.api.volume_fixtures import fault

V370 = '3.70'


@pytest.fixture
def fixed_key(conf):
    conf.set_override('backend', CONF_KEY_MANAGER, group='key_manager')
    conf.set_override('fixed_key', '0123456789abcdef' * 4, group='key_manager')
    return conf


def _encrypted(db, conf, key_id=FIXED_KEY_ID):
    volume = owned_volume(db, conf, size=2, encryption_key_id=key_id)
    snapshot_id = add_snapshot(db, conf, volume)
    with db.writer() as s:
        s.execute(sa.update(Snapshot).where(Snapshot.id == snapshot_id).values(
            encryption_key_id=key_id))
    return volume, snapshot_id


def _keys(db, volume_id) -> tuple:
    """(the volume's owner, status and key id, its snapshots' key ids)."""
    volume = db_volumes.get(db, volume_id=volume_id)
    with db.reader() as s:
        snapshot_keys = set(s.scalars(sa.select(Snapshot.encryption_key_id).where(
            Snapshot.volume_id == volume_id)))
    return (volume.project_id, volume.status, volume.encryption_key_id), snapshot_keys


def _offer(client, db, conf, key_id=FIXED_KEY_ID):
    volume, _snapshot = _encrypted(db, conf, key_id)
    resp = create(client, volume.id, headers=member(version=V370))
    assert resp.status_code == 202, resp.text
    return volume, resp.json['transfer']


def test_an_encrypted_volume_is_offered_and_accepted_with_the_fixed_key(kclient, seeded,
                                                                        fixed_key):
    volume, shown = _offer(kclient, seeded, fixed_key)
    assert _keys(seeded, volume.id) == ((DONOR, 'awaiting-transfer', FIXED_KEY_ID),
                                        {FIXED_KEY_ID})
    resp = accept(kclient, shown['id'], shown['auth_key'], headers=taker(V370))
    assert resp.status_code == 202, resp.text
    assert _keys(seeded, volume.id) == ((TAKER, 'available', FIXED_KEY_ID), {FIXED_KEY_ID})
    assert used(seeded, TAKER)['volumes'] == 1 and used(seeded, TAKER)['snapshots'] == 1


def test_a_withdrawn_offer_gives_the_volume_and_its_key_back(kclient, seeded, fixed_key):
    volume, shown = _offer(kclient, seeded, fixed_key)
    resp = kclient.simulate_delete(f'/v3/volume-transfers/{shown["id"]}',
                                   headers=member(version=V370))
    assert resp.status_code == 202
    assert _keys(seeded, volume.id) == ((DONOR, 'available', FIXED_KEY_ID), {FIXED_KEY_ID})


def test_before_3_70_an_encrypted_volume_is_refused(kclient, seeded, fixed_key):
    volume, _snapshot = _encrypted(seeded, fixed_key)
    resp = create(kclient, volume.id, headers=member(version='3.69'))
    assert fault(resp) == (400, 'Invalid volume: transferring encrypted volume is not '
                                'supported')
    assert transfer_rows(seeded) == []


def test_a_failing_key_manager_is_500_and_leaves_no_offer(kclient, seeded, conf):
    """No key manager configured any more: castellan's error is no Cinder one (500)."""
    volume, _snapshot = _encrypted(seeded, conf)
    resp = create(kclient, volume.id, headers=member(version=V370))
    assert resp.status_code == 500 and 'computeFault' in resp.json
    assert [row.deleted for row in transfer_rows(seeded)] == [True]
    assert _keys(seeded, volume.id) == ((DONOR, 'available', FIXED_KEY_ID), {FIXED_KEY_ID})


class _Barbican:
    """A key manager whose every store makes a new key (as Barbican), recording deletes."""

    def __init__(self):
        self.keys = {'k0': b'secret'}
        self.deleted = []

    def get(self, ctx, key_id):
        return self.keys[key_id]

    def store(self, ctx, key):
        key_id = f'k{len(self.keys)}'
        self.keys[key_id] = key
        return key_id

    def delete(self, ctx, key_id):
        self.deleted.append(key_id)


@pytest.fixture
def barbican(monkeypatch):
    keys = _Barbican()
    monkeypatch.setattr(key_manager, 'from_conf', lambda conf: keys)
    return keys


def test_each_move_points_the_volume_and_snapshots_at_the_new_key(kclient, seeded, conf,
                                                                  barbican):
    volume, shown = _offer(kclient, seeded, conf, key_id='k0')
    assert _keys(seeded, volume.id) == ((DONOR, 'awaiting-transfer', 'k1'), {'k1'})
    assert accept(kclient, shown['id'], shown['auth_key'],
                  headers=taker(V370)).status_code == 202
    assert _keys(seeded, volume.id) == ((TAKER, 'available', 'k2'), {'k2'})
    assert barbican.deleted == ['k0', 'k1']


def test_an_accept_that_fails_after_the_key_moved_moves_it_back(kclient, seeded, conf,
                                                               barbican):
    volume, shown = _offer(kclient, seeded, conf, key_id='k0')
    with seeded.writer() as s:
        s.execute(sa.update(Snapshot).where(Snapshot.volume_id == volume.id).values(
            status='error'))
    resp = accept(kclient, shown['id'], shown['auth_key'], headers=taker(V370))
    assert resp.status_code == 400, resp.text
    assert _keys(seeded, volume.id) == ((DONOR, 'awaiting-transfer', 'k3'), {'k3'})
    assert barbican.deleted == ['k0', 'k1', 'k2']
    assert used(seeded, TAKER).get('volumes', 0) == 0
