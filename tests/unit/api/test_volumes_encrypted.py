"""Volumes of an encrypted type: with no usable key manager Cinder's "Key manager error"
(nothing written, quota unchanged, no cast); with the fixed-key manager the key id is kept
(hidden in views as Cinder hides FIXED_KEY_ID) and GET /volumes/{id}/encryption serves it."""

import pytest
from falcon import testing

from cinderlike.api.app import create_app
from cinderlike.db import encryption as db_encryption
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volume_types as db_types
from cinderlike.key_manager import FIXED_KEY_ID
from tests.unit.api.volume_fixtures import (
    add_volume,
    admin,
    fault,
    post,
    usages,
    user,
    volume_rows,
)

LUKS = {'provider': 'luks', 'cipher': 'aes-xts-plain64', 'key_size': 256,
        'control_location': 'front-end'}
CONF_KEY_MANAGER = 'cinder.keymgr.conf_key_mgr.ConfKeyManager'


def _encrypted_type(db, name='secret', specs=LUKS, **extra_specs):
    vtype = db_types.create(db, name=name, extra_specs=extra_specs)
    db_encryption.create(db, type_id=vtype.id, specs=specs)
    return vtype


@pytest.fixture
def fixed_key(conf):
    conf.set_override('backend', CONF_KEY_MANAGER, group='key_manager')
    conf.set_override('fixed_key', '0123456789abcdef' * 4, group='key_manager')
    return conf


def _refused(client, db, rpc, body, message):
    resp = post(client, body)
    assert fault(resp) == (400, message)
    assert (volume_rows(db), usages(db), rpc.scheduler.calls) == ([], {}, [])


@pytest.mark.parametrize('backend, fixed', [
    (None, None), ('barbican', None), (CONF_KEY_MANAGER, None), (CONF_KEY_MANAGER, 'zz'),
], ids=['unset', 'barbican', 'no-fixed_key', 'fixed_key-not-hex'])
def test_no_usable_key_manager_is_cinders_key_manager_error(conf, seeded, rpc, backend,
                                                            fixed):
    conf.set_override('backend', backend, group='key_manager')
    conf.set_override('fixed_key', fixed, group='key_manager')
    client = testing.TestClient(create_app(conf, db=seeded, rpc=rpc))
    _encrypted_type(seeded)
    _refused(client, seeded, rpc, {'volume': {'size': 1, 'volume_type': 'secret'}},
             'Key manager error')


def test_fixed_key_volume_is_encrypted_and_its_id_hidden(fixed_key, seeded, rpc):
    client = testing.TestClient(create_app(fixed_key, db=seeded, rpc=rpc))
    _encrypted_type(seeded)
    resp = post(client, {'volume': {'size': 1, 'volume_type': 'secret'}}, version='3.64')
    assert resp.status_code == 202
    shown = resp.json['volume']
    assert shown['encrypted'] is True and 'encryption_key_id' not in shown
    row, = volume_rows(seeded)
    assert row.encryption_key_id == FIXED_KEY_ID
    assert usages(seeded)['volumes'] == (1, 0)
    metadata = client.simulate_get(f'/v3/volumes/{row.id}/encryption', headers=admin())
    assert metadata.json == {'encryption_key_id': FIXED_KEY_ID, **LUKS}
    item = client.simulate_get(f'/v3/volumes/{row.id}/encryption/control_location',
                               headers=admin())
    assert item.json == 'front-end'


def test_an_encrypted_volume_in_a_project_with_usage_rows_gets_its_key(fixed_key, seeded,
                                                                         rpc):
    client = testing.TestClient(create_app(fixed_key, db=seeded, rpc=rpc))
    _encrypted_type(seeded)
    body = {'volume': {'size': 1, 'volume_type': 'secret'}}
    assert post(client, body).status_code == 202
    assert post(client, body).status_code == 202
    assert [row.encryption_key_id for row in volume_rows(seeded)] == [FIXED_KEY_ID] * 2
    assert usages(seeded)['volumes_secret'] == (2, 0)


def test_a_clone_of_an_encrypted_volume_gets_a_copy_of_its_key(fixed_key, seeded, rpc):
    client = testing.TestClient(create_app(fixed_key, db=seeded, rpc=rpc))
    _encrypted_type(seeded)
    source = add_volume(seeded, type_name='secret', encryption_key_id=FIXED_KEY_ID)
    resp = post(client, {'volume': {'source_volid': source.id}})
    assert resp.status_code == 202 and resp.json['volume']['encrypted'] is True


def test_a_type_without_cipher_is_invalid(fixed_key, seeded, rpc):
    client = testing.TestClient(create_app(fixed_key, db=seeded, rpc=rpc))
    _encrypted_type(seeded, specs=dict(LUKS, cipher=None))
    _refused(client, seeded, rpc, {'volume': {'size': 1, 'volume_type': 'secret'}},
             'Invalid encryption spec')


def test_multiattach_cannot_be_encrypted(fixed_key, seeded, rpc):
    client = testing.TestClient(create_app(fixed_key, db=seeded, rpc=rpc))
    _encrypted_type(seeded, multiattach='<is> True')
    _refused(client, seeded, rpc, {'volume': {'size': 1, 'volume_type': 'secret'}},
             'Invalid volume: Multiattach cannot be used with encrypted volumes.')


def test_unencrypted_volume_metadata_is_the_null_key(vclient, seeded):
    volume = add_volume(seeded)
    resp = vclient.simulate_get(f'/v3/volumes/{volume.id}/encryption', headers=admin())
    assert (resp.status_code, resp.json) == (200, {'encryption_key_id': None})
    missing = vclient.simulate_get(f'/v3/volumes/{volume.id}/encryption/cipher',
                                   headers=admin())
    assert fault(missing) == (404, f'Volume {volume.id} has no encryption metadata cipher.')


def test_encryption_metadata_by_project(kclient, seeded):
    mine = add_volume(seeded, project='b6a4e8d1c5f04e5ba1a1f1c0d8a6a001')
    theirs = add_volume(seeded, project='someone-else')
    reader = user('reader')
    assert kclient.simulate_get(f'/v3/volumes/{mine.id}/encryption',
                                headers=reader).status_code == 200
    resp = kclient.simulate_get(f'/v3/volumes/{theirs.id}/encryption', headers=reader)
    assert fault(resp) == (404, f'Volume {theirs.id} could not be found.')
    unknown = kclient.simulate_get('/v3/volumes/nope/encryption', headers=reader)
    assert fault(unknown) == (404, 'Volume nope could not be found.')


def test_a_clone_needs_a_type_encrypted_the_same_way(fixed_key, seeded, rpc):
    client = testing.TestClient(create_app(fixed_key, db=seeded, rpc=rpc))
    _encrypted_type(seeded)
    plain = db_types.create(seeded, name='plain')
    source = add_volume(seeded, type_name='secret', encryption_key_id=FIXED_KEY_ID)
    before = [v.id for v in volume_rows(seeded)]
    resp = post(client, {'volume': {'source_volid': source.id, 'volume_type': 'plain'}})
    assert fault(resp) == (400, f'Invalid input received: Invalid volume_type provided: '
                                f'{plain.id} (requested type is not compatible; either match '
                                'source volume, or omit type argument).')
    assert [v.id for v in volume_rows(seeded)] == before and rpc.scheduler.calls == []
    _encrypted_type(seeded, name='secret-too')
    same = post(client, {'volume': {'source_volid': source.id, 'volume_type': 'secret-too'}})
    assert same.status_code == 202 and same.json['volume']['encrypted'] is True


def test_a_volume_from_a_snapshot_needs_the_same_encryption(fixed_key, seeded, rpc):
    client = testing.TestClient(create_app(fixed_key, db=seeded, rpc=rpc))
    plain = add_volume(seeded)
    snapshot = db_snapshots.create(seeded, values={
        'volume_id': plain.id, 'project_id': 'admin', 'volume_size': 1,
        'volume_type_id': plain.volume_type_id})
    db_snapshots.MACHINE.reset(seeded, row_id=snapshot.id, values={'status': 'available'})
    secret = _encrypted_type(seeded)
    resp = post(client, {'volume': {'snapshot_id': snapshot.id, 'volume_type': 'secret'}})
    assert fault(resp) == (400, f'Invalid input received: Invalid volume_type provided: '
                                f'{secret.id} (requested type is not compatible; recommend '
                                'omitting the type argument).')
    assert len(volume_rows(seeded)) == 1 and rpc.scheduler.calls == []
