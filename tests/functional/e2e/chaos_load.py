"""The chaos run's workload: client threads that create, extend, clone, snapshot, back up,
attach, detach and delete through the REST API, and a ledger of every answer and every
accepted operation (tests/functional/e2e/chaos.py judges it once everything has settled).

Each client works on volumes of its own, one operation at a time: an accepted asynchronous
operation is followed in the database until its resource leaves the transitional statuses
(the API may be the daemon just killed). What the client saw is the operation's outcome:
`done` (the resource reached what the operation promised), `error` (it settled otherwise:
a user message must say why) or None (not settled yet: judged again at the end).
"""

import dataclasses
import datetime
import json
import threading
import time
import urllib.error
import urllib.request
import uuid

import sqlalchemy as sa

from cinderlike.db import engine
from cinderlike.db.models import Backup, Message, Snapshot, Volume, VolumeAttachment
from cinderlike.states.volumes import DELETABLE
from tests.functional.e2e.stack import PROJECT

V = f'/v3/{PROJECT}'
VERSION = '3.60'  # attachments with a mode (3.54), os-complete (3.44)
CONNECTOR = {'initiator': 'iqn.1994-05.com.redhat:chaos', 'ip': '127.0.0.1',
             'host': 'chaoshost', 'multipath': False, 'platform': 'x86_64',
             'os_type': 'linux2', 'do_local_attach': False}
MODELS = {'volume': Volume, 'snapshot': Snapshot, 'backup': Backup}
# What a volume is left in when an attachment's create failed after reserving it and was
# not undone: no operation of the user's is in flight, yet nobody will settle it.
LEFT_RESERVED = 'reserved'
# Statuses an operation passes through; a resource in one of these has not settled.
TRANSITIONAL = {
    'volume': frozenset({'creating', 'deleting', 'extending', 'attaching', 'detaching',
                         'backing-up', 'restoring-backup', 'retyping', 'reverting',
                         'downloading', 'uploading', 'managing', 'unmanaging'}),
    'snapshot': frozenset({'creating', 'deleting', 'backing-up', 'restoring', 'updating',
                           'unmanaging'}),
    'backup': frozenset({'creating', 'deleting', 'restoring'}),
}
MAX_VOLUMES = 4     # per client
MAX_SIZE_GB = 3     # extends stop there
MAX_SNAPSHOTS = 2   # per volume
RETRY_DELAY = 1.0   # seconds after an answer of 5xx or none


@dataclasses.dataclass
class Op:
    """One accepted operation."""

    kind: str           # create, clone, from_snapshot, extend, delete, snapshot, ...
    resource: str       # volume, snapshot, backup, attachment
    rid: str
    at: float           # monotonic, when the API accepted it
    since: datetime.datetime  # UTC wall clock, for the user messages written after it
    new_size: int | None = None
    outcome: str | None = None  # done | error | None (not settled yet)
    settled_at: float | None = None  # monotonic, when the client saw the outcome


def success(op: Op, row: dict | None) -> bool | None:
    """Whether *row* (the op's resource now) is what *op* promised; None while unsettled."""
    if op.resource == 'attachment':
        return True  # synchronous: the 2xx answer was the completion
    if row is None:
        return None
    if op.kind.startswith('delete'):
        if row['deleted']:
            return True
    elif row['deleted']:
        return False
    if row['status'] in TRANSITIONAL[op.resource]:
        return None
    if op.kind == 'extend':
        return row['status'] == 'available' and row['size'] == op.new_size
    return not op.kind.startswith('delete') and row['status'] == 'available'


class Reader:
    """The harness's own reads of the deployment's database (the API may be down)."""

    def __init__(self, url):
        self.db = engine.Database(url)

    def close(self):
        self.db.dispose()

    def row(self, resource, rid) -> dict | None:
        """{status, size, deleted} of a volume, snapshot or backup; raises while the database
        is unreachable."""
        model = MODELS[resource]
        size = model.volume_size if resource == 'snapshot' else model.size
        with self.db.reader() as s:
            found = s.execute(sa.select(model.status, size, model.deleted)
                              .where(model.id == rid)).first()
        return None if found is None else {'status': found[0], 'size': found[1],
                                           'deleted': found[2]}

    def has_message(self, rid, since) -> bool:
        with self.db.reader() as s:
            return bool(s.scalar(sa.select(sa.func.count()).select_from(Message).where(
                Message.resource_uuid == rid, Message.created_at >= since)))

    def unsettled(self) -> dict[str, list]:
        """(id, status) of every live resource of the project in a transitional status."""
        found = {}
        with self.db.reader() as s:
            for resource, model in MODELS.items():
                statuses = TRANSITIONAL[resource] | (
                    {LEFT_RESERVED} if resource == 'volume' else set())
                found[resource] = [tuple(r) for r in s.execute(
                    sa.select(model.id, model.status).where(
                        model.deleted.is_(False), model.project_id == PROJECT,
                        model.status.in_(sorted(statuses)))).all()]
            found['attachment'] = [tuple(r) for r in s.execute(
                sa.select(VolumeAttachment.id, VolumeAttachment.attach_status).where(
                    VolumeAttachment.deleted.is_(False),
                    VolumeAttachment.attach_status.in_(('attaching', 'detaching')))).all()]
        return found


class Ledger:
    """Every answer (for the 5xx count) and every accepted operation, from all clients."""

    def __init__(self):
        self.lock = threading.Lock()
        # (sent, answered, method, what, status): monotonic times of the request
        self.answers: list[tuple[float, float, str, str, int | None]] = []
        self.ops: list[Op] = []
        self.failures: list[str] = []  # clients that stopped on an exception
        # NOTE(backups): one backup at a time, of 1 GiB volumes only: a backup reads and
        # hashes the whole volume (about 30 s per GiB on the loaded 2-core machine), and
        # several at once in one daemon outlast the final 2 x service_down_time although
        # nothing is stuck.
        self.backup_slot = threading.Lock()

    def answer(self, sent, method, what, status):
        with self.lock:
            self.answers.append((sent, time.monotonic(), method, what, status))

    def accepted(self, op: Op) -> Op:
        with self.lock:
            self.ops.append(op)
        return op


class Api:
    """The deployment's REST API as the noauth admin; every answer goes to the ledger."""

    def __init__(self, url, token, ledger):
        self.url, self.token, self.ledger = url, token, ledger

    def __call__(self, method, path, body=None, *, what) -> tuple[int | None, dict | None]:
        """(status, JSON body) of one request; (None, None) when nothing answered."""
        request = urllib.request.Request(
            f'{self.url}{V}{path}', method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={'X-Auth-Token': self.token, 'Content-Type': 'application/json',
                     'OpenStack-API-Version': f'volume {VERSION}'})
        status, raw, sent = None, b'', time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        except OSError:  # refused, reset or timed out: the API is being killed
            pass
        self.ledger.answer(sent, method, what, status)
        if status is None or status >= 500:
            # NOTE(backoff): a client waits before its next request to a failing API, or
            # its loop spins through refused connections while the API restarts.
            time.sleep(RETRY_DELAY)
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, None


@dataclasses.dataclass
class Vol:
    """What a client knows of one of its volumes."""

    id: str
    size: int
    status: str = 'available'
    attachment: str | None = None
    snapshots: list = dataclasses.field(default_factory=list)  # (id, size)
    backups: list = dataclasses.field(default_factory=list)


class Client:
    """One user, working on volumes of its own until *stop* is set."""

    def __init__(self, *, api, reader, ledger, rng, stop, op_timeout):
        self.api, self.reader, self.ledger, self.rng = api, reader, ledger, rng
        self.stop, self.op_timeout = stop, op_timeout
        self.volumes: dict[str, Vol] = {}

    def run(self):
        try:
            while not self.stop.is_set():
                action, vol = self._choose()
                action(vol)
        except Exception as exc:  # a harness fault: the result shows it and cannot pass
            with self.ledger.lock:
                self.ledger.failures.append(f'{type(exc).__name__}: {exc}')

    def finish(self, tries=10):
        """Delete the attachments whose os-complete failed and whose delete failed too, as
        the host would go on doing (the API may have been down)."""
        for vol in list(self.volumes.values()):
            for _ in range(tries):
                if vol.attachment is None or vol.status == 'in-use':
                    break
                self._detach(vol)
                if vol.attachment is not None:
                    time.sleep(2)

    def _choose(self):
        idle = [v for v in self.volumes.values() if v.status == 'available' or v.attachment]
        choices = [(self._create, None, 3 if len(self.volumes) < MAX_VOLUMES else 0)]
        for vol in idle:
            if vol.attachment:  # in-use, or attaching when its os-complete failed
                choices.append((self._detach, vol, 3))
                continue
            choices += [(self._extend, vol, 2 if vol.size < MAX_SIZE_GB else 0),
                        (self._snapshot, vol, 2 if len(vol.snapshots) < MAX_SNAPSHOTS else 0),
                        (self._unsnapshot, vol, 2 if vol.snapshots else 0),
                        (self._backup, vol, 1 if not vol.backups and vol.size == 1 else 0),
                        (self._unbackup, vol, 1 if vol.backups else 0),
                        (self._attach, vol, 2),
                        (self._delete, vol, 0 if vol.snapshots else 2)]
        for vol in self.volumes.values():
            if vol.status in DELETABLE and vol.status != 'available':
                # what failed is deleted, as a user would
                choices.append((self._delete, vol, 2))
        actions = [(a, v) for a, v, weight in choices for _ in range(weight)]
        return self.rng.choice(actions) if actions else (self._wait, None)

    def _wait(self, _vol):
        self.stop.wait(1)

    # -- following an accepted operation ------------------------------------------------

    def _accepted(self, kind, resource, rid, new_size=None) -> Op:
        return self.ledger.accepted(Op(kind, resource, rid, time.monotonic(),
                                       datetime.datetime.utcnow(), new_size))

    def _follow(self, op: Op) -> dict | None:
        """Poll the op's resource until it settles; its row then (None if it did not)."""
        deadline = time.monotonic() + self.op_timeout
        while not self.stop.is_set() and time.monotonic() < deadline:
            try:
                row = self.reader.row(op.resource, op.rid)
            except sa.exc.SQLAlchemyError:  # the database is being restarted
                row = None
            else:
                result = success(op, row)
                if result is not None:
                    op.outcome = 'done' if result else 'error'
                    op.settled_at = time.monotonic()
                    return row
            time.sleep(0.5)
        return None

    def _refresh(self, vol: Vol):
        """The volume's status and size once its own operation has settled; a volume whose
        row did not settle in time is given up (judged at the end)."""
        deadline = time.monotonic() + self.op_timeout
        while not self.stop.is_set() and time.monotonic() < deadline:
            try:
                row = self.reader.row('volume', vol.id)
            except sa.exc.SQLAlchemyError:
                row = None
            if row is not None and row['status'] not in TRANSITIONAL['volume']:
                vol.status, vol.size = row['status'], row['size']
                if row['deleted'] or not (vol.status in DELETABLE or vol.attachment):
                    # gone, or stuck where a user can do no more (error_deleting)
                    self.volumes.pop(vol.id, None)
                return
            time.sleep(0.5)
        self.volumes.pop(vol.id, None)

    # -- the operations ------------------------------------------------------------------

    def _create(self, _vol):
        body, kind = {'size': 1}, 'create'
        available = [v for v in self.volumes.values() if v.status == 'available']
        sources = [snap for v in available for snap in v.snapshots]
        pick = self.rng.random()
        if available and pick < 0.25:
            source = self.rng.choice(available)
            body, kind = {'size': source.size, 'source_volid': source.id}, 'clone'
        elif sources and pick < 0.5:
            snapshot_id, size = self.rng.choice(sources)
            body, kind = {'size': size, 'snapshot_id': snapshot_id}, 'from_snapshot'
        status, answer = self.api('POST', '/volumes', {'volume': {
            **body, 'name': f'chaos-{uuid.uuid4().hex[:8]}'}}, what=kind)
        if status != 202:
            return
        op = self._accepted(kind, 'volume', answer['volume']['id'])
        row = self._follow(op)
        if row is not None and not row['deleted']:
            self.volumes[op.rid] = Vol(op.rid, row['size'], row['status'])

    def _extend(self, vol: Vol):
        status, _ = self.api('POST', f'/volumes/{vol.id}/action',
                             {'os-extend': {'new_size': vol.size + 1}}, what='extend')
        if status == 202:
            self._follow(self._accepted('extend', 'volume', vol.id, new_size=vol.size + 1))
            self._refresh(vol)

    def _delete(self, vol: Vol):
        status, _ = self.api('DELETE', f'/volumes/{vol.id}', what='delete')
        if status == 202:
            self._follow(self._accepted('delete', 'volume', vol.id))
            self._refresh(vol)

    def _snapshot(self, vol: Vol):
        status, answer = self.api('POST', '/snapshots', {'snapshot': {
            'volume_id': vol.id, 'name': f'chaos-{uuid.uuid4().hex[:8]}'}}, what='snapshot')
        if status != 202:
            return
        op = self._accepted('snapshot', 'snapshot', answer['snapshot']['id'])
        row = self._follow(op)
        if op.outcome == 'done':
            vol.snapshots.append((op.rid, row['size']))
        self._refresh(vol)

    def _unsnapshot(self, vol: Vol):
        snapshot = self.rng.choice(vol.snapshots)
        status, _ = self.api('DELETE', f'/snapshots/{snapshot[0]}', what='delete_snapshot')
        if status == 202:
            op = self._accepted('delete_snapshot', 'snapshot', snapshot[0])
            self._follow(op)
            if op.outcome is not None:  # gone, or in error_deleting: not a source any more
                vol.snapshots.remove(snapshot)
            self._refresh(vol)

    def _backup(self, vol: Vol):
        if not self.ledger.backup_slot.acquire(blocking=False):
            return
        try:
            status, answer = self.api('POST', '/backups', {'backup': {
                'volume_id': vol.id, 'name': f'chaos-{uuid.uuid4().hex[:8]}'}}, what='backup')
            if status != 202:
                return
            op = self._accepted('backup', 'backup', answer['backup']['id'])
            self._follow(op)
        finally:
            self.ledger.backup_slot.release()
        if op.outcome == 'done':
            vol.backups.append(op.rid)
        self._refresh(vol)

    def _unbackup(self, vol: Vol):
        backup_id = vol.backups.pop()
        status, _ = self.api('DELETE', f'/backups/{backup_id}', what='delete_backup')
        if status == 202:
            self._follow(self._accepted('delete_backup', 'backup', backup_id))
        else:
            vol.backups.append(backup_id)

    def _attach(self, vol: Vol):
        status, answer = self.api('POST', '/attachments', {'attachment': {
            'volume_uuid': vol.id, 'instance_uuid': str(uuid.uuid4()), 'connector': CONNECTOR,
            'mode': 'rw'}}, what='attach')
        if status != 200:
            return
        attachment_id = answer['attachment']['id']
        self._accepted('attach', 'attachment', attachment_id)
        vol.attachment, vol.status = attachment_id, 'attaching'
        status, _ = self.api('POST', f'/attachments/{attachment_id}/action',
                             {'os-complete': None}, what='complete')
        if status == 204:
            self._accepted('complete', 'attachment', attachment_id)
            vol.status = 'in-use'
        else:  # the host gives up on this attachment: it is deleted again
            self._detach(vol)

    def _detach(self, vol: Vol):
        status, _ = self.api('DELETE', f'/attachments/{vol.attachment}', what='detach')
        if status == 200:
            self._accepted('detach', 'attachment', vol.attachment)
            vol.attachment = None
            self._refresh(vol)
