"""Key managers for encrypted volume types (cinderlike-api makes and clones volume keys).

Cinder asks castellan's configured backend; cinderlike serves Cinder's fixed-key manager
(ConfKeyManager: one key, `[key_manager] fixed_key`, always under FIXED_KEY_ID) and answers
every other backend, or none, with KeyManagerError, which the API shows as Cinder does when
its key manager fails ("Key manager error", 400). Data is never encrypted here: the host
that attaches a volume does that (os-brick), with the key it fetches by this id.
"""

import binascii

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# Cinder's constants.FIXED_KEY_ID: the id of ConfKeyManager's one key.
FIXED_KEY_ID = '00000000-0000-0000-0000-000000000000'
CONF_KEY_MANAGERS = ('cinder.keymgr.conf_key_mgr.ConfKeyManager',
                     'cinderlike.key_manager.ConfKeyManager')


class KeyManagerError(Exception):
    """The key manager cannot do what was asked (castellan's KeyManagerError)."""


class ConfKeyManager:
    """Cinder's ConfKeyManager: every volume shares the key configured as fixed_key.

    NOTE(fixed_key): Cinder hands out FIXED_KEY_ID even with no fixed_key set, so the
    volume fails only when a host attaches it; here creating one is refused then.
    """

    warning_logged = False

    def __init__(self, fixed_key: str | None):
        self._fixed_key = fixed_key
        if not ConfKeyManager.warning_logged:
            LOG.warning('This key manager is insecure and is not recommended for production '
                        'deployments')
            ConfKeyManager.warning_logged = True

    def _key(self) -> bytes:
        if not self._fixed_key:
            raise KeyManagerError('config option key_manager.fixed_key is not defined')
        try:
            return binascii.unhexlify(self._fixed_key)
        except (binascii.Error, ValueError):
            raise KeyManagerError('config option key_manager.fixed_key is not hex') from None

    def create_key(self, ctx, *, algorithm: str, length: int | None) -> str:
        """The id of the fixed key (for a volume of an encrypted type)."""
        self._key()
        return FIXED_KEY_ID

    def get(self, ctx, key_id: str) -> bytes:
        if key_id != FIXED_KEY_ID:
            raise KeyManagerError(f'{key_id} != {FIXED_KEY_ID}')
        return self._key()

    def store(self, ctx, key: bytes) -> str:
        if key != self._key():
            raise KeyManagerError('cannot store arbitrary keys')
        return FIXED_KEY_ID

    def clone(self, ctx, key_id: str) -> str:
        """A key equal to *key_id*'s, for a volume made from another (Cinder's
        clone_encryption_key: store(get(id)))."""
        return self.store(ctx, self.get(ctx, key_id))

    def delete(self, ctx, key_id: str) -> None:
        """The fixed key is never deleted."""
        if key_id != FIXED_KEY_ID:
            raise KeyManagerError('cannot delete non-existent key')
        LOG.warning('Not deleting key %s', key_id)


class NoKeyManager:
    """No usable backend configured: every request fails, saying why in the log."""

    def __init__(self, reason: str):
        self._reason = reason

    def _fail(self, *args, **kwargs):
        raise KeyManagerError(self._reason)

    create_key = get = store = clone = delete = _fail


def from_conf(conf) -> ConfKeyManager | NoKeyManager:
    """The key manager `[key_manager] backend` names."""
    backend = conf.key_manager.backend
    if backend in CONF_KEY_MANAGERS:
        return ConfKeyManager(conf.key_manager.fixed_key)
    if not backend:
        return NoKeyManager('no key manager is configured ([key_manager] backend)')
    return NoKeyManager(f'key manager backend {backend!r} is not available in cinderlike '
                        f'(serves {CONF_KEY_MANAGERS[0]})')
