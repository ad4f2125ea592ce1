"""The key managers: Cinder's fixed-key manager hands out one key under FIXED_KEY_ID and only
while `fixed_key` is set and hex; any other backend, or none, refuses every request."""

import pytest

from cinderlike import key_manager
from cinderlike.key_manager import FIXED_KEY_ID, KeyManagerError

HEX = '00112233445566778899aabbccddeeff'


def _keys(conf, backend, fixed_key=None):
    conf.set_override('backend', backend, group='key_manager')
    conf.set_override('fixed_key', fixed_key, group='key_manager')
    return key_manager.from_conf(conf)


@pytest.mark.parametrize('backend', key_manager.CONF_KEY_MANAGERS)
def test_the_fixed_key_manager(conf, backend):
    keys = _keys(conf, backend, HEX)
    assert keys.create_key(None, algorithm='aes', length=256) == FIXED_KEY_ID
    assert keys.get(None, FIXED_KEY_ID) == bytes.fromhex(HEX)
    assert keys.clone(None, FIXED_KEY_ID) == FIXED_KEY_ID
    keys.delete(None, FIXED_KEY_ID)  # never deleted, only logged
    with pytest.raises(KeyManagerError):
        keys.get(None, 'another-key')
    with pytest.raises(KeyManagerError):
        keys.store(None, b'another key')
    with pytest.raises(KeyManagerError):
        keys.delete(None, 'another-key')


@pytest.mark.parametrize('fixed_key', [None, '', 'not hex', 'abc'])
def test_no_usable_fixed_key_refuses(conf, fixed_key):
    keys = _keys(conf, key_manager.CONF_KEY_MANAGERS[0], fixed_key)
    with pytest.raises(KeyManagerError, match='fixed_key'):
        keys.create_key(None, algorithm='aes', length=256)


@pytest.mark.parametrize('backend, reason', [
    (None, r'no key manager is configured \(\[key_manager\] backend\)'),
    ('barbican', "key manager backend 'barbican' is not available in cinderlike"),
])
def test_other_backends_refuse_everything(conf, backend, reason):
    keys = _keys(conf, backend)
    for call in (lambda: keys.create_key(None, algorithm='aes', length=256),
                 lambda: keys.clone(None, FIXED_KEY_ID), lambda: keys.delete(None, 'x')):
        with pytest.raises(KeyManagerError, match=reason):
            call()
