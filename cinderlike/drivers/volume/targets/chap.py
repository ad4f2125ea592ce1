"""CHAP credentials of an export, generated and kept as Cinder's volume_utils and iSCSI target
do: `provider_auth` is 'CHAP <username> <password>'."""

import secrets

# Cinder's DEFAULT_PASSWORD_SYMBOLS: no visually confusing 0, 1, I, O or l.
SYMBOL_GROUPS = ('23456789', 'ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz')
METHOD = 'CHAP'


def generate_password(length: int = 16, symbolgroups: tuple[str, ...] = SYMBOL_GROUPS) -> str:
    """A random string with at least one symbol of each group (when *length* allows)."""
    rng = secrets.SystemRandom()
    chosen = [rng.choice(group) for group in symbolgroups]
    rng.shuffle(chosen)
    chosen = chosen[:length]
    symbols = ''.join(symbolgroups)
    chosen.extend(rng.choice(symbols) for _ in range(length - len(chosen)))
    rng.shuffle(chosen)
    return ''.join(chosen)


def generate_username(length: int = 20, symbolgroups: tuple[str, ...] = SYMBOL_GROUPS) -> str:
    """Cinder makes usernames as passwords, only longer."""
    return generate_password(length, symbolgroups)


def generate() -> tuple[str, str]:
    """New (username, password) for one volume's export."""
    return generate_username(), generate_password()


def provider_auth(credentials: tuple[str, str]) -> str:
    return f'{METHOD} {credentials[0]} {credentials[1]}'


def parse(provider_auth_value: str | None) -> tuple[str, str] | None:
    """(username, password) of a stored provider_auth, or None when it has none."""
    if not provider_auth_value:
        return None
    _method, username, password = provider_auth_value.split(' ', 2)
    return username, password
