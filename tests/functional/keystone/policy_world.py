"""The resources the policy matrix walks: projects A and B against the real Keystone, each with
a reader, a member and an admin (A) or a member (B), and every kind of resource once per
project, created through the API as those users would.

`World.fresh(kind)` makes one more resource of *kind* in project A, for the calls that use
their target up (delete, extend, accept...). A new resource kind is one entry in MAKERS.
"""

import base64
import json
import urllib.error
import urllib.request
import uuid

import sqlalchemy as sa

from tests.functional.clients.helpers import settle

VERSION = 'volume 3.71'
CONNECTOR = {'host': 'matrix-host', 'initiator': 'iqn.1993-08.org.debian:01:matrix',
             'ip': '192.0.2.10', 'platform': 'x86_64', 'os_type': 'linux2', 'multipath': False}
BACKUP_SERVICE = 'cinder.backup.drivers.posix.PosixBackupDriver'  # the stack's backup_driver
# Rows of these tables change without a request (heartbeats, pool stats, cluster views).
BACKGROUND_TABLES = {'services', 'pools', 'clusters', 'alembic_version'}


class Caller:
    """One persona: a Keystone user's token, and the project its URLs name."""

    def __init__(self, name, keystone, user, url_project=None):
        self.name = name
        self.user = user
        self._identity = keystone.identity(user)
        self.project_id = user.project_id
        self.url_project = url_project or user.project_id

    def token(self) -> str:
        return self._identity.token()


def call(api_url, caller, method, path, body=None, *, project=None):
    """(status, parsed JSON or None, raw text) of *method* /v3/<project><path> as *caller*."""
    headers = {'X-Auth-Token': caller.token(), 'OpenStack-API-Version': VERSION,
               'Content-Type': 'application/json'}
    data = None if body is None else json.dumps(body).encode()
    url = f'{api_url}/v3/{project or caller.url_project}{path}'
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    text = raw.decode(errors='replace')
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        parsed = None
    return status, parsed, text


class World:
    """The personas, the resources of projects A and B, and a fingerprint of the database."""

    def __init__(self, stack, keystone):
        self.api_url = stack.api_url
        self.db = sa.create_engine(stack.db_url)
        self._tables = sa.MetaData()
        self._tables.reflect(self.db)
        self.host = stack.host
        b_member = keystone.user(f'cl-b-member-{uuid.uuid4().hex[:6]}',
                                 project_name=f'cl-project-b-{uuid.uuid4().hex[:6]}',
                                 roles=('member',))
        users = keystone.users
        self.callers = {
            'reader': Caller('reader', keystone, users['reader']),
            'member': Caller('member', keystone, users['member']),
            'admin': Caller('admin', keystone, users['admin']),
            'other': Caller('other', keystone, b_member),
        }
        # member of B through A's URL
        self.callers['foreign_url'] = Caller('foreign_url', keystone, b_member,
                                             url_project=users['member'].project_id)
        self.member_of = {'A': self.callers['member'], 'B': self.callers['other']}
        self.project_of = {'A': users['member'].project_id, 'B': b_member.project_id}
        self.resources = {'A': {}, 'B': {}}
        self.unplaceable = self._admin_ok('POST', '/types', {'volume_type': {
            'name': f'matrix-nowhere-{uuid.uuid4().hex[:6]}',
            'extra_specs': {'volume_backend_name': 'nowhere'}}})['volume_type']['id']
        self.scratch_project = uuid.uuid4().hex
        for project in ('A', 'B'):
            # NOTE(quota): the rows make a volume for each call that uses one up.
            self._admin_ok('PUT', f'/os-quota-sets/{self.project_of[project]}', {'quota_set': {
                'volumes': -1, 'snapshots': -1, 'gigabytes': -1, 'backups': -1,
                'backup_gigabytes': -1, 'groups': -1}})
            for kind in MAKERS:
                self.resources[project][kind] = self.make(kind, project)

    # -- calls --------------------------------------------------------------------------------

    def call(self, caller, method, path, body=None):
        return call(self.api_url, caller, method, path, body)

    def _ok(self, caller, method, path, body=None, expect=(200, 202)):
        status, parsed, text = self.call(caller, method, path, body)
        assert status in expect, f'{caller.name} {method} {path} -> {status} {text[:500]}'
        return parsed

    def _admin_ok(self, method, path, body=None):
        return self._ok(self.callers['admin'], method, path, body)

    def _wait(self, caller, path, key, until, field='status'):
        return settle(lambda: self.call(caller, 'GET', path)[1][key][field], until=until,
                      what=f'{path} {field} to settle')

    # -- makers -------------------------------------------------------------------------------

    def make(self, kind, project='A'):
        """A new resource of *kind* in *project*; its id (or ids, for a transfer)."""
        return MAKERS[kind](self, project)

    def fresh(self, kind):
        return self.make(kind, 'A')

    def volume(self, project, **extra):
        member = self.member_of[project]
        volume = self._ok(member, 'POST', '/volumes', {'volume': {
            'size': 1, 'name': f'matrix-{project}', 'metadata': {'k': 'v', 'gone': 'x'},
            **extra}})['volume']
        return volume['id']

    def available_volume(self, project):
        volume_id = self.volume(project)
        self._wait(self.member_of[project], f'/volumes/{volume_id}', 'volume',
                   lambda status: status == 'available')
        return volume_id

    def snapshot(self, project):
        member = self.member_of[project]
        volume_id = self.resources[project].get('volume') or self.available_volume(project)
        snapshot = self._ok(member, 'POST', '/snapshots', {'snapshot': {
            'volume_id': volume_id, 'name': f'matrix-{project}',
            'metadata': {'k': 'v', 'gone': 'x'}}})['snapshot']
        self._wait(member, f'/snapshots/{snapshot["id"]}', 'snapshot',
                   lambda status: status == 'available')
        return snapshot['id']

    def private_type(self, project):
        vtype = self._admin_ok('POST', '/types', {'volume_type': {
            'name': f'matrix-{project}-{uuid.uuid4().hex[:6]}', 'os-volume-type-access:is_public':
            False, 'extra_specs': {'k': 'v', 'gone': 'x',
                                   'replication_enabled': '<is> False'}}})['volume_type']
        self._admin_ok('POST', f'/types/{vtype["id"]}/action', {
            'addProjectAccess': {'project': self.project_of[project]}})
        return vtype['id']

    def encrypted_type(self, project):
        """A private type with Cinder's usual LUKS encryption, used by no volume."""
        type_id = self.private_type(project)
        self._admin_ok('POST', f'/types/{type_id}/encryption', {'encryption': {
            'provider': 'luks', 'cipher': 'aes-xts-plain64', 'key_size': 256,
            'control_location': 'front-end'}})
        return type_id

    def qos(self, project):
        return self._admin_ok('POST', '/qos-specs', {'qos_specs': {
            'name': f'matrix-{project}-{uuid.uuid4().hex[:6]}', 'k': 'v',
            'gone': 'x'}})['qos_specs']['id']

    def transfer(self, project):
        volume_id = self.available_volume(project)
        transfer = self._ok(self.member_of[project], 'POST', '/volume-transfers', {
            'transfer': {'volume_id': volume_id, 'name': f'matrix-{project}'}})['transfer']
        return {'id': transfer['id'], 'auth_key': transfer['auth_key']}

    def attachment(self, project):
        volume_id = self.available_volume(project)
        attachment = self._ok(self.member_of[project], 'POST', '/attachments', {
            'attachment': {'volume_uuid': volume_id,
                           'instance_uuid': str(uuid.uuid4())}})['attachment']
        return attachment['id']

    def connected_attachment(self, project):
        """An attachment `attaching`: its connector given, not completed yet."""
        attachment_id = self.attachment(project)
        self._ok(self.member_of[project], 'PUT', f'/attachments/{attachment_id}',
                 {'attachment': {'connector': CONNECTOR}}, expect=(200,))
        return attachment_id

    def message(self, project):
        """A user message of a create the scheduler cannot place (no such backend)."""
        member = self.member_of[project]
        volume_id = self.volume(project, volume_type=self.unplaceable)
        self._wait(member, f'/volumes/{volume_id}', 'volume', lambda status: status == 'error')
        found = settle(lambda: self.call(member, 'GET', f'/messages?resource_uuid={volume_id}')[
            1]['messages'], until=bool, what=f'a user message for volume {volume_id}')
        return found[0]['id']

    def backup(self, project):
        """A backup `available`: made on an available volume of its own; on this stack's fake
        driver it ends `error` (no host opens the volume), and an admin resets it."""
        member = self.member_of[project]
        volume_id = self.available_volume(project)
        backup_id = self._ok(member, 'POST', '/backups', {'backup': {
            'volume_id': volume_id, 'name': f'matrix-{project}'}})['backup']['id']
        self._wait(member, f'/backups/{backup_id}', 'backup',
                   lambda status: status in ('available', 'error'))
        self._wait(member, f'/volumes/{volume_id}', 'volume',
                   lambda status: status == 'available')
        self._admin_ok('POST', f'/backups/{backup_id}/action',
                       {'os-reset_status': {'status': 'available'}})
        self._wait(member, f'/backups/{backup_id}', 'backup',
                   lambda status: status == 'available')
        return backup_id

    def backup_record(self, project):
        """A record import_record takes (Cinder's base64 JSON of the backup's fields) of a
        backup of this project's volume under a new id. Not an export: the fake driver's
        backups hold no objects to export."""
        volume_id = self.resources[project]['volume']
        fields = {'id': str(uuid.uuid4()), 'size': 1, 'volume_id': volume_id,
                  'display_name': f'matrix-imported-{project}', 'status': 'available'}
        return {'id': fields['id'], 'backup_service': BACKUP_SERVICE,
                'backup_url': base64.b64encode(json.dumps(fields).encode()).decode()}

    def group_type(self, project):
        return self._admin_ok('POST', '/group_types', {'group_type': {
            'name': f'matrix-{project}-{uuid.uuid4().hex[:6]}', 'group_specs': {
                'k': 'v', 'gone': 'x'}}})['group_type']['id']

    def group(self, project):
        """An `available` group of A's (or B's) group type and the default volume type."""
        member = self.member_of[project]
        group_type = self.resources[project].get('group_type') or self.group_type(project)
        group_id = self._ok(member, 'POST', '/groups', {'group': {
            'name': f'matrix-{project}', 'group_type': group_type,
            'volume_types': ['__DEFAULT__']}})['group']['id']
        self._wait(member, f'/groups/{group_id}', 'group', lambda status: status == 'available')
        return group_id

    def group_snapshot(self, project):
        member = self.member_of[project]
        group_id = self.resources[project].get('group') or self.group(project)
        gs_id = self._ok(member, 'POST', '/group_snapshots', {'group_snapshot': {
            'group_id': group_id, 'name': f'matrix-{project}'}})['group_snapshot']['id']
        self._wait(member, f'/group_snapshots/{gs_id}', 'group_snapshot',
                   lambda status: status == 'available')
        return gs_id

    # -- what changed -------------------------------------------------------------------------

    def fingerprint(self) -> dict[str, list]:
        """Every row of every table a request may write."""
        with self.db.connect() as conn:
            return {name: sorted(map(repr, conn.execute(sa.select(table)).all()))
                    for name, table in self._tables.tables.items()
                    if name not in BACKGROUND_TABLES}

    def ids(self, project) -> dict[str, str]:
        """The path and body fields of *project*'s resources."""
        found = {kind: value['id'] if isinstance(value, dict) else value
                 for kind, value in self.resources[project].items()}
        found['auth_key'] = self.resources[project]['transfer']['auth_key']
        found['record'] = {key: self.resources[project]['backup_record'][key]
                           for key in ('backup_service', 'backup_url')}
        found['target'] = self.project_of[project]
        found['host'] = self.host
        found['scratch'] = self.scratch_project
        return found


MAKERS = {
    'volume': World.available_volume,
    'snapshot': World.snapshot,
    'type': World.private_type,
    'encrypted_type': World.encrypted_type,
    'qos': World.qos,
    'transfer': World.transfer,
    'attachment': World.attachment,
    'connected_attachment': World.connected_attachment,
    'message': World.message,
    'backup': World.backup,
    'backup_record': World.backup_record,
    'group_type': World.group_type,
    'group': World.group,
    'group_snapshot': World.group_snapshot,
}
