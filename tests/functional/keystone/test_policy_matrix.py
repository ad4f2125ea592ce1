"""Every served route × persona against the real Keystone (Cinder's default policies).

Personas: reader, member and admin of project A; `other`, the member of project B on its own
URL, and `foreign_url`, the same member through A's URL. Each row names A's resource it
works on. Expected, as Cinder answers:
- `foreign_url`: 400 `Malformed request url` (the URL's project is not the token's);
- `other`: 404 for A's resources (looked up in B before any policy), else what a member gets;
- reader: reads; 403 for writes; member: reads and writes; 403 for admin-only rules;
- admin (an `admin` role on any project): everything.
A refusal changes no row of the database. Lists seen from B hold none of A's resources.

A new resource: a maker in policy_world.MAKERS and its rows in ROWS.
"""

import dataclasses
import uuid
from collections.abc import Callable

import pytest

from tests.functional.keystone.policy_world import CONNECTOR, World

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

READ, WRITE, ADMIN, ANYONE = 'read', 'write', 'admin', 'anyone'
ALLOWED = {READ: {'reader', 'member', 'admin'}, WRITE: {'member', 'admin'},
           ADMIN: {'admin'}, ANYONE: {'reader', 'member', 'admin'}}
MALFORMED_URL = {'badRequest': {'code': 400, 'message': 'Malformed request url'}}
OK = {'GET': (200,), 'POST': (200, 202), 'PUT': (200,), 'DELETE': (200, 202, 204)}


@dataclasses.dataclass(frozen=True)
class Row:
    """One route: *path* and *body* take A's resource ids ({volume}, {snapshot}, ...).

    *fresh*: the kind of resource the call uses up, made anew for each permitted call.
    *other*: what B's member gets on its own URL (None: 404 when the path names A's
    resource, else a member's answer). *ok*: the permitted answers (default by method).
    *lists*: the kind listed: a non-admin is shown its own project's, never the other's.
    *cross_project*: B's member may act on A's resource (a transfer's accept).
    """

    persona: str
    method: str
    path: str
    body: Callable[[dict], dict] | None = None
    fresh: str | None = None
    other: int | None = None
    ok: tuple[int, ...] | None = None
    lists: str | None = None
    cross_project: bool = False

    @property
    def owned(self) -> bool:
        path = self.path.partition('?')[0]
        return any(f'{{{kind}}}' in path for kind in (
            'volume', 'snapshot', 'type', 'transfer', 'attachment', 'connected_attachment',
            'message', 'backup', 'group', 'group_snapshot'))

    def expected(self, persona: str) -> tuple[int, ...] | None:
        """The refusal *persona* gets, or None when it is permitted."""
        if persona == 'foreign_url':
            return (400,)
        if persona == 'other':
            if self.cross_project:
                return None
            if self.other is not None:
                return (self.other,)
            if self.owned:
                return (404,)
            persona = 'member'
        return None if persona in ALLOWED[self.persona] else (403,)

    def permitted(self) -> tuple[int, ...]:
        return self.ok or OK[self.method]


def _meta(key='k', value='matrix'):
    return lambda ids: {'meta': {key: value}}


def _action(name, args=None):
    return lambda ids: {name: args(ids) if callable(args) else (args or {})}


V, S, B = '/volumes/{volume}', '/snapshots/{snapshot}', '/backups/{backup}'
T, Q = '/types/{type}', '/qos-specs/{qos}'
VT, LT = '/volume-transfers', '/os-volume-transfer'
GT, G = '/group_types/{group_type}', '/groups/{group}'
GS = '/group_snapshots/{group_snapshot}'
ROWS = {
    # volumes
    'volumes list': Row(READ, 'GET', '/volumes', lists='volume'),
    'volumes detail': Row(READ, 'GET', '/volumes/detail', lists='volume'),
    'volumes all_tenants': Row(READ, 'GET', '/volumes/detail?all_tenants=1', lists='volume'),
    'volumes summary': Row(READ, 'GET', '/volumes/summary'),
    'volume create': Row(WRITE, 'POST', '/volumes',
                         lambda ids: {'volume': {'size': 1, 'name': 'matrix-made'}}),
    'volume show': Row(READ, 'GET', V),
    'volume update': Row(WRITE, 'PUT', V, lambda ids: {'volume': {'description': 'matrix'}}),
    'volume delete': Row(WRITE, 'DELETE', V, fresh='volume', ok=(202,)),
    'volume force delete': Row(ADMIN, 'DELETE', V + '?force=true', fresh='volume', ok=(202,)),
    'volume metadata': Row(READ, 'GET', V + '/metadata'),
    'volume metadata create': Row(WRITE, 'POST', V + '/metadata',
                                  lambda ids: {'metadata': {'k': 'matrix'}}),
    'volume metadata replace': Row(WRITE, 'PUT', V + '/metadata',
                                   lambda ids: {'metadata': {'k': 'v', 'gone': 'x'}}),
    'volume metadata key': Row(READ, 'GET', V + '/metadata/k'),
    'volume metadata key update': Row(WRITE, 'PUT', V + '/metadata/k', _meta()),
    'volume metadata key delete': Row(WRITE, 'DELETE', V + '/metadata/gone', fresh='volume'),
    'os-extend': Row(WRITE, 'POST', V + '/action', _action('os-extend', {'new_size': 2}),
                     fresh='volume', ok=(202,)),
    'os-set_bootable': Row(WRITE, 'POST', V + '/action',
                           _action('os-set_bootable', {'bootable': False}), ok=(200,)),
    'os-update_readonly_flag': Row(WRITE, 'POST', V + '/action',
                                   _action('os-update_readonly_flag', {'readonly': False}),
                                   ok=(202,)),
    'revert': Row(WRITE, 'POST', V + '/action',
                  _action('revert', lambda ids: {'snapshot_id': ids['snapshot']}),
                  fresh='volume', ok=(400,)),
    'os-reserve': Row(WRITE, 'POST', V + '/action', _action('os-reserve'), fresh='volume',
                      ok=(202,)),
    'os-unreserve': Row(WRITE, 'POST', V + '/action', _action('os-unreserve'), ok=(202,)),
    'os-begin_detaching': Row(WRITE, 'POST', V + '/action', _action('os-begin_detaching'),
                              ok=(400,)),
    'os-roll_detaching': Row(WRITE, 'POST', V + '/action', _action('os-roll_detaching'),
                             ok=(202,)),
    'os-initialize_connection': Row(
        WRITE, 'POST', V + '/action', _action('os-initialize_connection',
                                              {'connector': CONNECTOR}),
        fresh='volume', ok=(200,)),
    'os-terminate_connection': Row(
        WRITE, 'POST', V + '/action', _action('os-terminate_connection',
                                              {'connector': CONNECTOR}),
        fresh='volume', ok=(202,)),
    'os-attach': Row(WRITE, 'POST', V + '/action', _action('os-attach', {
        'instance_uuid': str(uuid.UUID(int=1)), 'mountpoint': '/dev/vdb', 'mode': 'rw'}),
        fresh='volume', ok=(202,)),
    'os-detach': Row(WRITE, 'POST', V + '/action', _action('os-detach'), fresh='volume',
                     ok=(202,)),
    'os-force_detach': Row(ADMIN, 'POST', V + '/action', _action('os-force_detach'),
                           fresh='volume', ok=(202, 400)),
    'os-reset_status': Row(ADMIN, 'POST', V + '/action',
                           _action('os-reset_status', {'status': 'available'}), ok=(202,)),
    'os-force_delete': Row(ADMIN, 'POST', V + '/action', _action('os-force_delete'),
                           fresh='volume', ok=(202,)),
    'os-retype': Row(WRITE, 'POST', V + '/action',
                     _action('os-retype', lambda ids: {'new_type': ids['type']}),
                     fresh='volume', ok=(202,)),
    # NOTE(migrate): no second backend in this world: the admin's answer is the 400 of a
    # host without a service, which changes nothing.
    'os-migrate_volume': Row(ADMIN, 'POST', V + '/action',
                             _action('os-migrate_volume', {'host': 'no-such-host@none'}),
                             ok=(400,)),
    'os-migrate_volume_completion': Row(
        ADMIN, 'POST', V + '/action',
        _action('os-migrate_volume_completion', lambda ids: {'new_volume': ids['volume']}),
        ok=(200,)),
    'volume encryption': Row(READ, 'GET', V + '/encryption'),
    'volume encryption key': Row(READ, 'GET', V + '/encryption/encryption_key_id'),
    # snapshots
    'snapshots list': Row(READ, 'GET', '/snapshots', lists='snapshot'),
    'snapshots detail': Row(READ, 'GET', '/snapshots/detail', lists='snapshot'),
    'snapshot create': Row(WRITE, 'POST', '/snapshots', lambda ids: {'snapshot': {
        'volume_id': ids['volume'], 'name': 'matrix-made'}}, other=404, ok=(202,)),
    'snapshot show': Row(READ, 'GET', S),
    'snapshot update': Row(WRITE, 'PUT', S, lambda ids: {'snapshot': {'description': 'm'}}),
    'snapshot delete': Row(WRITE, 'DELETE', S, fresh='snapshot', ok=(202,)),
    'snapshot metadata': Row(READ, 'GET', S + '/metadata'),
    'snapshot metadata create': Row(WRITE, 'POST', S + '/metadata',
                                    lambda ids: {'metadata': {'k': 'matrix'}}),
    'snapshot metadata replace': Row(WRITE, 'PUT', S + '/metadata',
                                     lambda ids: {'metadata': {'k': 'v', 'gone': 'x'}}),
    'snapshot metadata key': Row(READ, 'GET', S + '/metadata/k'),
    'snapshot metadata key update': Row(WRITE, 'PUT', S + '/metadata/k', _meta()),
    'snapshot metadata key delete': Row(WRITE, 'DELETE', S + '/metadata/gone',
                                        fresh='snapshot'),
    'snapshot os-update_snapshot_status': Row(
        WRITE, 'POST', S + '/action',
        _action('os-update_snapshot_status', {'status': 'error'}), ok=(400,)),
    'snapshot os-reset_status': Row(ADMIN, 'POST', S + '/action',
                                    _action('os-reset_status', {'status': 'available'}),
                                    ok=(202,)),
    'snapshot os-force_delete': Row(ADMIN, 'POST', S + '/action', _action('os-force_delete'),
                                    fresh='snapshot', ok=(202,)),
    # volume types (A's private type), extra specs, access, default types
    'types list': Row(READ, 'GET', '/types', lists='type'),
    'type show': Row(READ, 'GET', T),
    'type create': Row(ADMIN, 'POST', '/types', lambda ids: {'volume_type': {
        'name': f'matrix-made-{uuid.uuid4().hex[:8]}'}}),
    'type update': Row(ADMIN, 'PUT', T, lambda ids: {'volume_type': {'description': 'm'}},
                       other=403),
    'type delete': Row(ADMIN, 'DELETE', T, fresh='type', other=403, ok=(202,)),
    'extra specs': Row(READ, 'GET', T + '/extra_specs'),
    'extra specs create': Row(ADMIN, 'POST', T + '/extra_specs',
                              lambda ids: {'extra_specs': {'k': 'matrix'}}, other=403),
    # NOTE(visible): a non-admin sees only the user-visible keys (read_sensitive).
    'extra spec': Row(READ, 'GET', T + '/extra_specs/replication_enabled'),
    'extra spec update': Row(ADMIN, 'PUT', T + '/extra_specs/k', lambda ids: {'k': 'matrix'},
                             other=403),
    # NOTE(order): as Cinder, the type is looked up before this rule is checked.
    'extra spec delete': Row(ADMIN, 'DELETE', T + '/extra_specs/gone', fresh='type',
                             ok=(202,)),
    'type access list': Row(ADMIN, 'GET', T + '/os-volume-type-access', other=403),
    'type access add': Row(ADMIN, 'POST', T + '/action', _action(
        'addProjectAccess', {'project': uuid.uuid4().hex}), other=403, ok=(202,)),
    'type access remove': Row(ADMIN, 'POST', T + '/action', _action(
        'removeProjectAccess', lambda ids: {'project': ids['target']}), other=403,
        fresh='type', ok=(202,)),
    'default types': Row(ADMIN, 'GET', '/default-types'),
    'default type set': Row(ADMIN, 'PUT', '/default-types/{target}', lambda ids: {
        'default_type': {'volume_type': ids['type']}}),
    'default type show': Row(ADMIN, 'GET', '/default-types/{target}'),
    'default type unset': Row(ADMIN, 'DELETE', '/default-types/{target}', ok=(204,)),
    # volume type encryption (admin only; the rules are checked before the type is read)
    'type encryption': Row(ADMIN, 'GET', T + '/encryption', other=403),
    'type encryption create': Row(ADMIN, 'POST', T + '/encryption', lambda ids: {
        'encryption': {'provider': 'luks', 'control_location': 'front-end'}}, fresh='type',
        other=403),
    'type encryption key': Row(ADMIN, 'GET', '/types/{encrypted_type}/encryption/provider'),
    'type encryption update': Row(ADMIN, 'PUT', '/types/{encrypted_type}/encryption/x',
                                  lambda ids: {'encryption': {'key_size': 512}}),
    'type encryption delete': Row(ADMIN, 'DELETE', '/types/{encrypted_type}/encryption/x',
                                  fresh='encrypted_type', ok=(202,)),
    # QoS specs (admin only)
    'qos list': Row(ADMIN, 'GET', '/qos-specs'),
    'qos create': Row(ADMIN, 'POST', '/qos-specs', lambda ids: {'qos_specs': {
        'name': f'matrix-made-{uuid.uuid4().hex[:8]}'}}),
    'qos show': Row(ADMIN, 'GET', Q),
    'qos update': Row(ADMIN, 'PUT', Q, lambda ids: {'qos_specs': {'k': 'matrix'}}),
    'qos delete keys': Row(ADMIN, 'PUT', Q + '/delete_keys', lambda ids: {'keys': ['gone']},
                           fresh='qos', ok=(202,)),
    'qos associations': Row(ADMIN, 'GET', Q + '/associations'),
    'qos associate': Row(ADMIN, 'GET', Q + '/associate?vol_type_id={type}', fresh='qos',
                         ok=(202,)),
    'qos disassociate': Row(ADMIN, 'GET', Q + '/disassociate?vol_type_id={type}', ok=(202,)),
    'qos disassociate all': Row(ADMIN, 'GET', Q + '/disassociate_all', ok=(202,)),
    'qos delete': Row(ADMIN, 'DELETE', Q, fresh='qos', ok=(202,)),
    # quotas and limits
    'quota show': Row(READ, 'GET', '/os-quota-sets/{target}', other=403),
    'quota usage': Row(READ, 'GET', '/os-quota-sets/{target}?usage=True', other=403),
    'quota defaults': Row(READ, 'GET', '/os-quota-sets/{target}/defaults', other=403),
    # NOTE(scratch): on a project of no one, so that A keeps the quotas the world set.
    'quota update': Row(ADMIN, 'PUT', '/os-quota-sets/{scratch}', lambda ids: {
        'quota_set': {'snapshots': 100}}),
    'quota delete': Row(ADMIN, 'DELETE', '/os-quota-sets/{scratch}'),
    'quota class show': Row(ADMIN, 'GET', '/os-quota-class-sets/default'),
    'quota class update': Row(ADMIN, 'PUT', '/os-quota-class-sets/default', lambda ids: {
        'quota_class_set': {'backups': 10}}),
    'limits': Row(ANYONE, 'GET', '/limits'),
    # user messages
    'messages list': Row(READ, 'GET', '/messages', lists='message'),
    'message show': Row(READ, 'GET', '/messages/{message}'),
    'message delete': Row(WRITE, 'DELETE', '/messages/{message}', fresh='message',
                          ok=(204,)),
    # transfers, on the v3 and the legacy paths
    'transfers list': Row(READ, 'GET', VT, lists='transfer'),
    'transfers detail': Row(READ, 'GET', VT + '/detail', lists='transfer'),
    'legacy transfers list': Row(READ, 'GET', LT, lists='transfer'),
    'legacy transfers detail': Row(READ, 'GET', LT + '/detail', lists='transfer'),
    'transfer create': Row(WRITE, 'POST', VT, lambda ids: {'transfer': {
        'volume_id': ids['volume'], 'name': 'matrix'}}, fresh='volume', other=404),
    'transfer show': Row(READ, 'GET', VT + '/{transfer}'),
    'legacy transfer show': Row(READ, 'GET', LT + '/{transfer}'),
    'legacy transfer create': Row(WRITE, 'POST', LT, lambda ids: {'transfer': {
        'volume_id': ids['volume'], 'name': 'matrix'}}, fresh='volume', other=404),
    'legacy transfer delete': Row(WRITE, 'DELETE', LT + '/{transfer}', fresh='transfer',
                                  ok=(202,)),
    'legacy transfer accept': Row(WRITE, 'POST', LT + '/{transfer}/accept', lambda ids: {
        'accept': {'auth_key': ids['auth_key']}}, fresh='transfer', cross_project=True,
        ok=(202,)),
    'transfer delete': Row(WRITE, 'DELETE', VT + '/{transfer}', fresh='transfer',
                           ok=(202,)),
    # NOTE(accept): accepting another project's transfer is what transfers are for: B's
    # member may (with the auth key), A's reader may not.
    'transfer accept': Row(WRITE, 'POST', VT + '/{transfer}/accept', lambda ids: {
        'accept': {'auth_key': ids['auth_key']}}, fresh='transfer', cross_project=True,
        ok=(202,)),
    # attachments (3.27)
    'attachments list': Row(ANYONE, 'GET', '/attachments', lists='attachment'),
    'attachments detail': Row(ANYONE, 'GET', '/attachments/detail', lists='attachment'),
    'attachment show': Row(ANYONE, 'GET', '/attachments/{attachment}'),
    'attachment create': Row(WRITE, 'POST', '/attachments', lambda ids: {'attachment': {
        'volume_uuid': ids['volume'], 'instance_uuid': str(uuid.uuid4())}}, fresh='volume',
        other=404),
    'attachment update': Row(WRITE, 'PUT', '/attachments/{attachment}', lambda ids: {
        'attachment': {'connector': CONNECTOR}}, fresh='attachment'),
    'attachment complete': Row(WRITE, 'POST', '/attachments/{connected_attachment}/action',
                               _action('os-complete'), fresh='connected_attachment',
                               ok=(204,)),
    'attachment delete': Row(WRITE, 'DELETE', '/attachments/{attachment}',
                             fresh='attachment', ok=(200,)),
    # backups (Cinder's cinder/policies/backups.py)
    'backups list': Row(READ, 'GET', '/backups', lists='backup'),
    'backups detail': Row(READ, 'GET', '/backups/detail', lists='backup'),
    'backup create': Row(WRITE, 'POST', '/backups', lambda ids: {'backup': {
        'volume_id': ids['volume'], 'name': 'matrix-made'}}, fresh='volume', other=404,
        ok=(202,)),
    'backup show': Row(READ, 'GET', B),
    'backup update': Row(WRITE, 'PUT', B, lambda ids: {'backup': {'description': 'matrix'}}),
    'backup delete': Row(WRITE, 'DELETE', B, fresh='backup', ok=(202,)),
    'backup restore': Row(WRITE, 'POST', B + '/restore', lambda ids: {'restore': {}},
                          fresh='backup', ok=(202,)),
    # NOTE(fake): on the fake driver a backup holds no objects, so the backup service
    # refuses the export (400) once the API's rules let it through.
    'backup export': Row(ADMIN, 'GET', B + '/export_record', ok=(400,)),
    'backup import': Row(ADMIN, 'POST', '/backups/import_record', lambda ids: {
        'backup-record': ids['record']}, ok=(201,)),
    'backup os-reset_status': Row(ADMIN, 'POST', B + '/action',
                                  _action('os-reset_status', {'status': 'error'}),
                                  fresh='backup', ok=(202,)),
    'backup os-force_delete': Row(ADMIN, 'POST', B + '/action', _action('os-force_delete'),
                                  fresh='backup', ok=(202,)),
    # group types (3.11): no rule to list or show; admins change them and their specs
    'group types list': Row(ANYONE, 'GET', '/group_types'),
    'group type show': Row(ANYONE, 'GET', GT),
    'group type default': Row(ANYONE, 'GET', '/group_types/default', ok=(404,)),
    'group type create': Row(ADMIN, 'POST', '/group_types', lambda ids: {'group_type': {
        'name': f'matrix-made-{uuid.uuid4().hex[:8]}'}}, ok=(202,)),
    'group type update': Row(ADMIN, 'PUT', GT, lambda ids: {'group_type': {
        'description': 'm'}}),
    'group type delete': Row(ADMIN, 'DELETE', GT, fresh='group_type', ok=(202,)),
    'group specs': Row(ADMIN, 'GET', GT + '/group_specs'),
    'group specs create': Row(ADMIN, 'POST', GT + '/group_specs',
                              lambda ids: {'group_specs': {'k': 'matrix'}}, ok=(202,)),
    'group spec': Row(ADMIN, 'GET', GT + '/group_specs/k'),
    'group spec update': Row(ADMIN, 'PUT', GT + '/group_specs/k', lambda ids: {'k': 'm'}),
    'group spec delete': Row(ADMIN, 'DELETE', GT + '/group_specs/gone', fresh='group_type',
                             ok=(202,)),
    # generic volume groups (3.13) and their actions
    'groups list': Row(READ, 'GET', '/groups', lists='group'),
    'groups detail': Row(READ, 'GET', '/groups/detail', lists='group'),
    'group show': Row(READ, 'GET', G),
    'group create': Row(WRITE, 'POST', '/groups', lambda ids: {'group': {
        'group_type': ids['group_type'], 'volume_types': ['__DEFAULT__']}}, ok=(202,)),
    # NOTE(unchanged): an update that changes nothing is Cinder's 400, so each differs.
    'group update': Row(WRITE, 'PUT', G, lambda ids: {'group': {
        'description': uuid.uuid4().hex[:8]}}, ok=(202,)),
    'group delete': Row(WRITE, 'POST', G + '/action', _action('delete'), fresh='group',
                        ok=(202,)),
    'group reset_status': Row(ADMIN, 'POST', G + '/action', _action(
        'reset_status', {'status': 'available'}), ok=(202,)),
    # NOTE(replication): the rule lets a member through; then no backend replicates.
    'group enable_replication': Row(WRITE, 'POST', G + '/action',
                                    _action('enable_replication'), ok=(400,)),
    'group disable_replication': Row(WRITE, 'POST', G + '/action',
                                     _action('disable_replication'), ok=(400,)),
    'group failover_replication': Row(WRITE, 'POST', G + '/action',
                                      _action('failover_replication'), ok=(400,)),
    'group list_replication_targets': Row(WRITE, 'POST', G + '/action',
                                          _action('list_replication_targets'), ok=(400,)),
    'group create from src': Row(WRITE, 'POST', '/groups/action', _action(
        'create-from-src', lambda ids: {'group_snapshot_id': ids['group_snapshot']}),
        other=404, ok=(202,)),
    # group snapshots (3.14)
    'group snapshots list': Row(READ, 'GET', '/group_snapshots', lists='group_snapshot'),
    'group snapshots detail': Row(READ, 'GET', '/group_snapshots/detail',
                                  lists='group_snapshot'),
    'group snapshot show': Row(READ, 'GET', GS),
    'group snapshot create': Row(WRITE, 'POST', '/group_snapshots', lambda ids: {
        'group_snapshot': {'group_id': ids['group']}}, other=404, ok=(202,)),
    'group snapshot delete': Row(WRITE, 'DELETE', GS, fresh='group_snapshot', ok=(202,)),
    'group snapshot reset_status': Row(ADMIN, 'POST', GS + '/action', _action(
        'reset_status', {'status': 'available'}), ok=(202,)),
    # the deployment (admin only) and what everyone may see
    'services': Row(ADMIN, 'GET', '/os-services'),
    'service enable': Row(ADMIN, 'PUT', '/os-services/enable', lambda ids: {
        'host': ids['host'], 'binary': 'cinder-scheduler'}),
    'clusters': Row(ADMIN, 'GET', '/clusters'),
    'clusters detail': Row(ADMIN, 'GET', '/clusters/detail'),
    'cluster show': Row(ADMIN, 'GET', '/clusters/no-such-cluster?binary=cinder-volume',
                        ok=(404,)),
    'cluster enable': Row(ADMIN, 'PUT', '/clusters/enable', lambda ids: {
        'name': 'no-such-cluster', 'binary': 'cinder-volume'}, ok=(404,)),
    'hosts': Row(ADMIN, 'GET', '/os-hosts'),
    'host show': Row(ADMIN, 'GET', '/os-hosts/{host}'),
    'pools': Row(ADMIN, 'GET', '/scheduler-stats/get_pools'),
    'capabilities': Row(ADMIN, 'GET', '/capabilities/{host}@b1'),
    'workers cleanup': Row(ADMIN, 'POST', '/workers/cleanup', lambda ids: {
        'host': 'no-such-host'}, ok=(202,)),
    # manage / unmanage (the references name nothing: the manage ends error_managing)
    'manageable volumes': Row(ADMIN, 'GET', '/manageable_volumes?host={host}@b1'),
    'manageable volumes detail': Row(ADMIN, 'GET', '/manageable_volumes/detail?host={host}@b1'),
    'os-volume-manage list': Row(ADMIN, 'GET', '/os-volume-manage?host={host}@b1'),
    'os-volume-manage detail': Row(ADMIN, 'GET', '/os-volume-manage/detail?host={host}@b1'),
    'manage volume': Row(ADMIN, 'POST', '/manageable_volumes', lambda ids: {'volume': {
        'host': f"{ids['host']}@b1", 'ref': {'source-name': 'matrix-missing'}}}, ok=(202,)),
    'os-volume-manage': Row(ADMIN, 'POST', '/os-volume-manage', lambda ids: {'volume': {
        'host': f"{ids['host']}@b1", 'ref': {'source-name': 'matrix-missing'}}}, ok=(202,)),
    'manageable snapshots': Row(ADMIN, 'GET', '/manageable_snapshots?host={host}@b1'),
    'manageable snapshots detail': Row(ADMIN, 'GET',
                                       '/manageable_snapshots/detail?host={host}@b1'),
    'os-snapshot-manage list': Row(ADMIN, 'GET', '/os-snapshot-manage?host={host}@b1'),
    'os-snapshot-manage detail': Row(ADMIN, 'GET', '/os-snapshot-manage/detail?host={host}@b1'),
    'manage snapshot': Row(ADMIN, 'POST', '/manageable_snapshots', lambda ids: {'snapshot': {
        'volume_id': ids['volume'], 'ref': 'matrix-missing'}}, other=404, ok=(202,)),
    'os-snapshot-manage': Row(ADMIN, 'POST', '/os-snapshot-manage', lambda ids: {'snapshot': {
        'volume_id': ids['volume'], 'ref': 'matrix-missing'}}, other=404, ok=(202,)),
    'os-unmanage': Row(ADMIN, 'POST', V + '/action', _action('os-unmanage'), fresh='volume',
                       ok=(202,)),
    'snapshot os-unmanage': Row(ADMIN, 'POST', S + '/action', _action('os-unmanage'),
                                fresh='snapshot', ok=(202,)),
    'availability zones': Row(ANYONE, 'GET', '/os-availability-zone'),
    'extensions': Row(ANYONE, 'GET', '/extensions'),
    'extension': Row(ANYONE, 'GET', '/extensions/os-admin-actions'),
}
PERSONAS = ('reader', 'member', 'admin', 'other', 'foreign_url')
REFUSED = [(name, persona) for name, row in ROWS.items() for persona in PERSONAS
           if row.expected(persona) is not None]
PERMITTED = [(name, persona) for name, row in ROWS.items() for persona in PERSONAS
             if row.expected(persona) is None]


@pytest.fixture(scope='module')
def world(stack, keystone, operator_config):
    return World(stack, keystone)


def _request(world, row, persona, ids):
    caller = world.callers[persona]
    body = row.body(ids) if row.body else None
    return world.call(caller, row.method, row.path.format(**ids), body)


@pytest.mark.parametrize(('name', 'persona'), REFUSED, ids=[f'{n}-{p}' for n, p in REFUSED])
def test_refused_and_nothing_changed(world, name, persona):
    row = ROWS[name]
    before = world.fingerprint()
    status, body, text = _request(world, row, persona, world.ids('A'))
    assert status in row.expected(persona), text[:500]
    if persona == 'foreign_url':
        assert body == MALFORMED_URL
    assert world.fingerprint() == before


@pytest.mark.parametrize(('name', 'persona'), PERMITTED,
                         ids=[f'{n}-{p}' for n, p in PERMITTED])
def test_permitted(world, name, persona):
    row = ROWS[name]
    ids = world.ids('A')
    if row.fresh:
        made = world.fresh(row.fresh)
        if isinstance(made, dict):
            ids.update(made, **{row.fresh: made['id']})
        else:
            ids[row.fresh] = made
    status, _body, text = _request(world, row, persona, ids)
    assert status in row.permitted(), text[:500]
    if row.lists and persona != 'admin':
        own, foreign = ('B', 'A') if persona == 'other' else ('A', 'B')
        assert world.ids(own)[row.lists] in text
        assert world.ids(foreign)[row.lists] not in text


def test_admin_lists_every_project_with_all_tenants(world):
    status, body, _text = world.call(world.callers['admin'], 'GET',
                                     '/volumes?all_tenants=1&limit=1000')
    assert status == 200
    listed = {v['id'] for v in body['volumes']}
    assert {world.resources['A']['volume'], world.resources['B']['volume']} <= listed


def test_view_attributes_follow_their_rules(world):
    """tenant_id for readers, host and migration status for admins (Cinder's extensions)."""
    path = f'/volumes/{world.resources["A"]["volume"]}'
    shown = {persona: world.call(world.callers[persona], 'GET', path)[1]['volume']
             for persona in ('reader', 'member', 'admin')}
    assert {p: 'os-vol-tenant-attr:tenant_id' in v for p, v in shown.items()} == {
        'reader': True, 'member': True, 'admin': True}
    assert {p: 'os-vol-host-attr:host' in v for p, v in shown.items()} == {
        'reader': False, 'member': False, 'admin': True}
    assert {p: 'os-vol-mig-status-attr:migstat' in v for p, v in shown.items()} == {
        'reader': False, 'member': False, 'admin': True}


def test_the_fingerprint_sees_a_write(world):
    """What the refusals are checked with notices a change of one column."""
    before = world.fingerprint()
    status, _body, text = world.call(world.callers['member'], 'PUT',
                                     f'/volumes/{world.resources["A"]["volume"]}',
                                     {'volume': {'description': f'seen-{uuid.uuid4().hex}'}})
    assert status == 200, text
    assert world.fingerprint() != before
