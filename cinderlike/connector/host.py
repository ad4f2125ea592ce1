"""What this host tells a volume service when it asks for a connection (os-brick's
`get_connector_properties`): addresses, platform and its iSCSI initiator name."""

import os
import platform
import secrets
import sys

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# open-iscsi's file; a host with an iSCSI initiator installed names itself there.
SYSTEM_INITIATOR_FILE = '/etc/iscsi/initiatorname.iscsi'
# The name this host made for itself when it had none, under $state_path.
OWN_INITIATOR_FILE = 'initiatorname.iscsi'
INITIATOR_KEY = 'InitiatorName='
# NOTE(iqn): the prefix Cinder's targets use; the suffix is random, so hosts sharing a
# state_path by mistake still differ only when each made its own file.
IQN_PREFIX = 'iqn.2010-10.org.openstack:initiator-'


def _read_initiator(path: str) -> str | None:
    """The InitiatorName= of an open-iscsi style file, None when there is no such file."""
    try:
        with open(path, encoding='utf-8') as source:
            lines = source.read().splitlines()
    except FileNotFoundError:
        return None
    for line in lines:
        line = line.strip()
        if line.startswith(INITIATOR_KEY) and line[len(INITIATOR_KEY):].strip():
            return line[len(INITIATOR_KEY):].strip()
    return None


def _persist_initiator(path: str) -> str:
    """Write a new IQN to *path* unless a concurrent process wrote one first; return the
    IQN the file holds.

    NOTE(race): the name is written to a private file and hard-linked into place, so two
    services starting together agree on one name (the link of the second one fails).
    """
    iqn = f'{IQN_PREFIX}{secrets.token_hex(6)}'
    os.makedirs(os.path.dirname(path), exist_ok=True)
    staging = f'{path}.{os.getpid()}.{secrets.token_hex(4)}'
    with open(staging, 'x', encoding='utf-8') as out:
        out.write(f'{INITIATOR_KEY}{iqn}\n')
        out.flush()
        os.fsync(out.fileno())
    try:
        os.link(staging, path)
        LOG.info('Generated iSCSI initiator name %(iqn)s in %(path)s',
                 {'iqn': iqn, 'path': path})
    except FileExistsError:
        pass
    finally:
        os.unlink(staging)
    existing = _read_initiator(path)
    if existing is None:
        raise ValueError(f'{path} holds no {INITIATOR_KEY} line')
    return existing


def initiator(state_path: str, *, system_file: str = SYSTEM_INITIATOR_FILE) -> str:
    """This host's iSCSI IQN: the system initiator's when it has one, else the one kept in
    *state_path* (made on first use)."""
    found = _read_initiator(system_file)
    if found is not None:
        return found
    own = os.path.join(state_path, OWN_INITIATOR_FILE)
    return _read_initiator(own) or _persist_initiator(own)


def properties(conf, host: str, *, system_file: str = SYSTEM_INITIATOR_FILE) -> dict:
    """Cinder's connector dict for this host, as os-brick builds it without multipath.

    NOTE(local-attach): `do_local_attach` is False: this host reaches volumes through
    qemu's user-space clients, never through a kernel block device.
    """
    return {
        'platform': platform.machine(),
        'os_type': sys.platform,
        'ip': conf.my_ip,
        'host': host,
        'multipath': False,
        'enforce_multipath': False,
        'initiator': initiator(conf.state_path, system_file=system_file),
        'do_local_attach': False,
    }
