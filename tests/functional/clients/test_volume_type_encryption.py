"""Volume type encryption through every real client against the four daemons: python-
cinderclient (library and `cinder encryption-type-*`), openstacksdk's type encryption proxy
and `openstack volume type create/set/show/unset --encryption-*`.

This stack configures no key manager, so a volume of an encrypted type is refused with
Cinder's "Key manager error" and nothing is created (tests/functional/e2e/
test_encrypted_volumes.py runs the fixed-key manager).
"""

import pytest
from cinderclient import exceptions as cinder_exceptions
from openstack import exceptions as sdk_exceptions

from tests.functional.clients.test_cinderclient import cinder  # noqa: F401 - fixture
from tests.functional.clients.test_openstack_cli import (
    _json,
    cli,  # noqa: F401 - fixture
)
from tests.functional.clients.test_openstacksdk import bs  # noqa: F401 - fixture
from tests.functional.clients.test_qos_specs import _table, cinder_cli  # noqa: F401
from tests.functional.e2e.stack import PROJECT

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

LUKS = {'provider': 'luks', 'cipher': 'aes-xts-plain64', 'key_size': 256,
        'control_location': 'front-end'}


def _encryption(stack, type_id):
    status, body = stack.request('GET', f'/v3/{PROJECT}/types/{type_id}/encryption')
    assert status == 200
    return body


def _volumes_named(stack, name):
    status, body = stack.request('GET', f'/v3/{PROJECT}/volumes?name={name}')
    assert status == 200
    return body['volumes']


def test_cinderclient_library(cinder, stack, name):  # noqa: F811
    vtype = cinder.volume_types.create(name)
    created = cinder.volume_encryption_types.create(vtype, dict(LUKS))
    assert {key: getattr(created, key) for key in LUKS} == LUKS
    assert created.volume_type_id == vtype.id
    shown = cinder.volume_encryption_types.get(vtype)
    assert (shown.volume_type_id, shown.provider, shown.key_size) == (vtype.id, 'luks', 256)
    assert vtype.id in [e.volume_type_id for e in cinder.volume_encryption_types.list()]
    with pytest.raises(cinder_exceptions.BadRequest) as twice:
        cinder.volume_encryption_types.create(vtype, dict(LUKS))
    assert twice.value.message == f'Volume type encryption for type {vtype.id} already exists.'
    with pytest.raises(cinder_exceptions.BadRequest) as refused:
        cinder.volumes.create(1, name=name, volume_type=vtype.id)
    assert refused.value.message == 'Key manager error'
    assert _volumes_named(stack, name) == []

    cinder.volume_encryption_types.update(vtype, {'key_size': 512, 'cipher': None})
    assert (_encryption(stack, vtype.id)['key_size'], _encryption(stack, vtype.id)['cipher']) \
        == (512, None)
    with pytest.raises(cinder_exceptions.BadRequest) as no_cipher:
        cinder.volumes.create(1, name=name, volume_type=vtype.id)
    assert no_cipher.value.message == 'Invalid encryption spec'
    assert _volumes_named(stack, name) == []

    cinder.volume_encryption_types.delete(vtype)
    assert _encryption(stack, vtype.id) == {}
    with pytest.raises(cinder_exceptions.NotFound) as gone:
        cinder.volume_encryption_types.delete(vtype)
    assert gone.value.message == f'Volume type encryption for type {vtype.id} does not exist.'
    cinder.volume_types.delete(vtype)


def test_bad_input_through_cinderclient(cinder, stack, name):  # noqa: F811
    vtype = cinder.volume_types.create(name)
    with pytest.raises(cinder_exceptions.BadRequest) as bad:
        cinder.volume_encryption_types.create(vtype, dict(LUKS, control_location='nowhere'))
    assert bad.value.message.startswith(
        'Invalid input for field/attribute control_location. Value: nowhere.')
    with pytest.raises(cinder_exceptions.BadRequest) as size:
        cinder.volume_encryption_types.create(vtype, dict(LUKS, key_size='big'))
    assert size.value.message == 'Invalid input received: key_size must be an integer.'
    assert _encryption(stack, vtype.id) == {}
    cinder.volume_types.delete(vtype)


def test_cinder_cli(cinder_cli, cinder, stack, name):  # noqa: F811
    vtype = cinder.volume_types.create(name)
    created = cinder_cli('encryption-type-create', '--cipher', 'aes-xts-plain64',
                         '--key-size', '256', '--control-location', 'front-end', name, 'luks')
    assert vtype.id in created and 'aes-xts-plain64' in created
    shown = cinder_cli('encryption-type-show', name)
    assert vtype.id in shown and 'aes-xts-plain64' in shown
    assert vtype.id in cinder_cli('encryption-type-list')
    cinder_cli('encryption-type-update', '--key-size', '512', '--control-location', 'back-end',
               name)
    shown = _encryption(stack, vtype.id)
    assert (shown['key_size'], shown['control_location'], shown['provider']) == (
        512, 'back-end', 'luks')
    cinder_cli('encryption-type-delete', name)
    assert _encryption(stack, vtype.id) == {}
    cinder.volume_types.delete(vtype)


def test_openstacksdk(bs, stack, name):  # noqa: F811
    vtype = bs.create_type(name=name)
    created = bs.create_type_encryption(vtype, **LUKS)
    assert (created.provider, created.key_size) == ('luks', 256)
    fetched = bs.get_type_encryption(vtype.id)
    assert (fetched.encryption_id, fetched.cipher, fetched.control_location) == (
        _encryption(stack, vtype.id)['encryption_id'], 'aes-xts-plain64', 'front-end')
    bs.update_type_encryption(volume_type=vtype, key_size=128)
    assert _encryption(stack, vtype.id)['key_size'] == 128
    with pytest.raises(sdk_exceptions.BadRequestException):
        bs.create_volume(size=1, name=name, volume_type=vtype.id)
    assert _volumes_named(stack, name) == []
    bs.delete_type_encryption(volume_type=vtype)
    assert _encryption(stack, vtype.id) == {}
    bs.delete_type(vtype)


def test_openstack_cli(cli, stack, name):  # noqa: F811
    created = _json(cli, 'volume', 'type', 'create', '--encryption-provider', 'luks',
                    '--encryption-cipher', 'aes-xts-plain64', '--encryption-key-size', '256',
                    '--encryption-control-location', 'front-end', name)
    assert created['encryption']['provider'] == 'luks'
    shown = _json(cli, 'volume', 'type', 'show', '--encryption-type', name)
    assert (shown['encryption']['cipher'], shown['encryption']['key_size']) == (
        'aes-xts-plain64', 256)
    listed = {t['Name']: t for t in _json(cli, 'volume', 'type', 'list', '--encryption-type')}
    assert listed[name]['Encryption']['provider'] == 'luks'
    cli('volume', 'type', 'set', '--encryption-key-size', '512', name)
    assert _encryption(stack, created['id'])['key_size'] == 512
    refused = cli('volume', 'create', '--size', '1', '--type', name, name, check=False)
    assert refused.returncode != 0 and 'Key manager error' in refused.stderr
    cli('volume', 'type', 'unset', '--encryption-type', name)
    assert _encryption(stack, created['id']) == {}
    cli('volume', 'type', 'delete', name)
