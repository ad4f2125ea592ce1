"""cinderlike-api: POST /volumes/{volume_id}/action — one `os-*` key (or `revert`, 3.40),
dispatched through one table of {action: (schema, policy, handler, microversions, status)}.

HTTP only: parse, validate, policy, call api/operations/, answer.
"""

import dataclasses
from collections.abc import Callable

import falcon

from cinderlike import exception
from cinderlike.api import microversions as mv
from cinderlike.api import validation
from cinderlike.api.operations import attachments as attach_operations
from cinderlike.api.operations import manageable
from cinderlike.api.operations import migrations as migration_operations
from cinderlike.api.operations import volumes as operations
from cinderlike.api.schemas import manageable as manageable_schema
from cinderlike.api.schemas import volumes as schema
from cinderlike.policies import manageable as manageable_policy
from cinderlike.policies import volumes as policy
from cinderlike.states import volumes as states


def _reset_values(asked: dict) -> dict:
    """Validated os-reset_status columns. :raises ValidationError:"""
    if not any(asked.get(k) for k in ('status', 'attach_status', 'migration_status')):
        raise exception.ValidationError(
            detail="Must specify 'status', 'attach_status' or 'migration_status' for update.")
    values = {}
    for key, valid, label in (
            ('status', states.RESET_STATUSES, 'status'),
            ('attach_status', states.RESET_ATTACH_STATUSES, 'attach status'),
            ('migration_status', states.RESET_MIGRATION_STATUSES, 'migration status')):
        if asked.get(key):
            value = asked[key].lower()
            if value not in valid:
                raise exception.ValidationError(detail=f'Must specify a valid {label}')
            values[key] = None if value == 'none' else value
    return values


@dataclasses.dataclass(frozen=True)
class Call:
    """What a handler gets: the resource's collaborators, the request and the volume."""

    conf: object
    db: object
    rpc: object
    enforcer: object
    req: falcon.Request
    volume: object
    args: dict

    @property
    def ctx(self):
        return self.req.context.ctx


@dataclasses.dataclass(frozen=True)
class Action:
    """One row of the table: *policy* is a rule name or a function of the Call; *schema*
    is the newest body schema, *older* (microversion, schema) the one used before it."""

    schema: dict
    policy: str | Callable[[Call], str]
    handler: Callable[[Call], dict | None]
    min_version: str = mv.BASE
    status: str = falcon.HTTP_202
    older: tuple[str, dict] | None = None

    def schema_for(self, api_version) -> dict:
        if self.older is not None and not api_version.matches(self.older[0]):
            return self.older[1]
        return self.schema


def _extend_attached(call: Call) -> bool:
    return (call.req.context.api_version.matches(mv.VOLUME_EXTEND_INUSE)
            and call.volume.status == states.Status.IN_USE)


def _extend(call: Call) -> None:
    operations.extend(call.conf, call.db, call.rpc, call.ctx, volume_id=call.volume.id,
                      new_size=int(call.args['new_size']), attached=_extend_attached(call))


def _backend_error(text: str):
    """Cinder's 500 when the backend failed a connection action."""
    def wrap(handler):
        def run(call: Call):
            try:
                return handler(call)
            except exception.VolumeBackendAPIException:
                raise falcon.HTTPInternalServerError(description=text) from None
        return run
    return wrap


@_backend_error('Unable to fetch connection information from backend.')
def _initialize(call: Call) -> dict:
    return {'connection_info': attach_operations.initialize_connection(
        call.db, call.rpc, call.ctx, volume=call.volume, connector=call.args['connector'])}


@_backend_error('Unable to terminate volume connection from backend.')
def _terminate(call: Call) -> None:
    attach_operations.terminate_connection(call.db, call.rpc, call.ctx, volume=call.volume,
                                           connector=call.args['connector'])


@_backend_error('Unable to terminate volume connection from backend.')
def _force_detach(call: Call) -> None:
    attach_operations.force_detach(call.db, call.rpc, call.ctx, volume=call.volume,
                                   connector=call.args.get('connector'),
                                   attachment_id=call.args.get('attachment_id'))


def _attach(call: Call) -> None:
    attach_operations.attach(call.db, call.rpc, call.ctx, volume=call.volume,
                             instance_uuid=call.args.get('instance_uuid'),
                             host_name=call.args.get('host_name'),
                             mountpoint=call.args['mountpoint'],
                             mode=call.args.get('mode', 'rw'))


def _detach(call: Call) -> None:
    attach_operations.detach(call.db, call.rpc, call.ctx, volume=call.volume,
                             attachment_id=(call.args or {}).get('attachment_id'))


def _retype(call: Call) -> None:
    migration_operations.retype(call.conf, call.db, call.rpc, call.enforcer, call.ctx,
                                volume=call.volume, new_type=call.args['new_type'],
                                migration_policy=call.args.get('migration_policy'))


def _migrate(call: Call) -> None:
    cluster, host = validation.cluster_host(call.req.context.api_version, call.args,
                                            mv.VOLUME_MIGRATE_CLUSTER)
    migration_operations.migrate_volume(
        call.conf, call.db, call.rpc, call.ctx, volume=call.volume, host=host,
        cluster_name=cluster,
        force_host_copy=schema.is_true(call.args.get('force_host_copy', False)),
        lock_volume=schema.is_true(call.args.get('lock_volume', False)))


def _migrate_completion(call: Call) -> dict:
    new_volume = operations.get(call.db, call.ctx, volume_id=call.args['new_volume'])
    # NOTE(cinder): `error` is taken as given: any true value, a string "false" too.
    saved = migration_operations.migrate_volume_completion(
        call.db, call.rpc, call.ctx, volume=call.volume, new_volume=new_volume,
        error=bool(call.args.get('error', False)))
    return {'save_volume_id': saved}


def _plain(function) -> Callable[[Call], None]:
    """A handler for an operation that takes only the volume."""
    return lambda call: function(call.db, call.ctx, volume=call.volume)


ACTIONS: dict[str, Action] = {
    'os-extend': Action(schema.extend, lambda call: policy.EXTEND_ATTACHED_POLICY
                        if _extend_attached(call) else policy.EXTEND_POLICY, _extend),
    'os-reset_status': Action(schema.reset_status, policy.RESET_STATUS_POLICY, lambda call:
                              operations.reset_status(call.db, call.ctx,
                                                      volume_id=call.volume.id,
                                                      values=_reset_values(call.args))),
    'os-force_delete': Action(schema.force_delete, policy.ADMIN_FORCE_DELETE_POLICY,
                              lambda call: operations.delete(call.db, call.rpc, call.ctx,
                                                             volume_id=call.volume.id,
                                                             force=True)),
    'os-set_bootable': Action(schema.set_bootable, policy.UPDATE_POLICY, lambda call:
                              operations.update(call.db, call.ctx, volume_id=call.volume.id,
                                                metadata=None, values={
                                                    'bootable': schema.is_true(
                                                        call.args['bootable'])}),
                              status=falcon.HTTP_200),
    'os-update_readonly_flag': Action(
        schema.update_readonly_flag, policy.UPDATE_READONLY_POLICY,
        lambda call: operations.update_readonly_flag(
            call.db, call.ctx, volume_id=call.volume.id,
            readonly=schema.is_true(call.args['readonly']))),
    'revert': Action(schema.revert, policy.REVERT_POLICY, lambda call: operations.revert(
        call.db, call.rpc, call.ctx, volume_id=call.volume.id,
        snapshot_id=call.args.get('snapshot_id')), min_version=mv.VOLUME_REVERT),
    'os-reserve': Action(schema.reserve, policy.RESERVE_POLICY,
                         _plain(attach_operations.reserve)),
    'os-unreserve': Action(schema.unreserve, policy.UNRESERVE_POLICY,
                           _plain(attach_operations.unreserve)),
    'os-begin_detaching': Action(schema.begin_detaching, policy.BEGIN_DETACHING_POLICY,
                                 _plain(attach_operations.begin_detaching)),
    'os-roll_detaching': Action(schema.roll_detaching, policy.ROLL_DETACHING_POLICY,
                                _plain(attach_operations.roll_detaching)),
    'os-initialize_connection': Action(schema.initialize_connection, policy.INITIALIZE_POLICY,
                                       _initialize, status=falcon.HTTP_200),
    'os-terminate_connection': Action(schema.terminate_connection, policy.TERMINATE_POLICY,
                                      _terminate),
    'os-attach': Action(schema.attach, policy.ATTACH_POLICY, _attach),
    'os-detach': Action(schema.detach, policy.DETACH_POLICY, _detach),
    'os-force_detach': Action(schema.force_detach, policy.FORCE_DETACH_POLICY, _force_detach),
    'os-retype': Action(schema.retype, policy.RETYPE_POLICY, _retype),
    'os-migrate_volume': Action(schema.migrate_volume_v316, policy.MIGRATE_POLICY, _migrate,
                                older=(mv.VOLUME_MIGRATE_CLUSTER, schema.migrate_volume)),
    'os-migrate_volume_completion': Action(schema.migrate_volume_completion,
                                           policy.MIGRATE_COMPLETE_POLICY, _migrate_completion,
                                           status=falcon.HTTP_200),
    'os-unmanage': Action(manageable_schema.unmanage, manageable_policy.UNMANAGE_POLICY,
                          lambda call: manageable.unmanage_volume(call.conf, call.db, call.rpc,
                                                                  call.ctx,
                                                                  volume_id=call.volume.id)),
}

# The actions that write the volume's admin metadata (its `readonly` key).
ADMIN_METADATA_ACTIONS = ('os-attach', 'os-update_readonly_flag')


class VolumeActions:
    """POST /volumes/{volume_id}/action."""

    def __init__(self, conf, db, enforcer, rpc):
        self._conf = conf
        self._db = db
        self._enforcer = enforcer
        self._rpc = rpc

    def on_post(self, req: falcon.Request, resp: falcon.Response, volume_id: str) -> None:
        """:raises Invalid, ValidationError, VolumeNotFound, InvalidVolume, OverQuota:"""
        body = validation.load_body(req)
        name = validation.action_name(req)
        action = ACTIONS.get(name)
        if action is not None and not req.context.api_version.matches(action.min_version):
            raise falcon.HTTPNotFound()
        if action is None:
            raise validation.no_such_action(name)
        args = body[name]
        validation.validate(action.schema_for(req.context.api_version), body)
        ctx = req.context.ctx
        volume = operations.get(self._db, ctx, volume_id=volume_id)
        call = Call(conf=self._conf, db=self._db, rpc=self._rpc, enforcer=self._enforcer,
                    req=req, volume=volume, args=args)
        rule = action.policy if isinstance(action.policy, str) else action.policy(call)
        target = {'project_id': volume.project_id, 'user_id': volume.user_id}
        self._enforcer.authorize(ctx, rule, target)
        if name in ADMIN_METADATA_ACTIONS:
            # NOTE(elevated): Cinder checks this one with an elevated context, so only an
            # operator's policy file can make it refuse.
            self._enforcer.authorize(ctx.elevated(), policy.UPDATE_ADMIN_METADATA_POLICY, target)
        answer = action.handler(call)
        resp.status = action.status
        if answer is not None:
            resp.media = answer
