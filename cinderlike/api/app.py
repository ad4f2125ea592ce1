"""cinderlike-api: create_app() builds the WSGI application and holds THE route table.

WSGI filters outside falcon (request id, keystonemiddleware's auth_token) wrap the falcon
core the way Cinder's paste pipeline does; everything else is falcon middleware.
"""

import functools

import falcon

from cinderlike.api import body, faults, healthcheck, middleware, openapi, path_rules, request_id
from cinderlike.api import metrics as api_metrics
from cinderlike.api.operations import group_types as group_type_operations
from cinderlike.api.operations import qos_specs as qos_operations
from cinderlike.api.operations import types as type_operations
from cinderlike.api.operations import volume_type_encryption as encryption_operations
from cinderlike.api.resources import (
    attachments,
    availability_zones,
    backups,
    capabilities,
    clusters,
    default_types,
    extensions,
    group_snapshots,
    group_types,
    groups,
    hosts,
    limits,
    manageable,
    messages,
    metadata,
    qos_specs,
    quota_class_sets,
    quota_sets,
    scheduler_stats,
    services,
    snapshots,
    transfers,
    type_access,
    type_extra_specs,
    types,
    versions,
    volume_actions,
    volume_encryption_metadata,
    volume_type_encryption,
    volumes,
    workers,
)
from cinderlike.api.resources import openapi as openapi_resource
from cinderlike.api.turns import ListingTurns
from cinderlike.backup import rpcapi as backup_rpcapi
from cinderlike.db.engine import Database
from cinderlike.policies.enforcer import Enforcer
from cinderlike.scheduler import rpcapi as scheduler_rpcapi
from cinderlike.volume import rpcapi as volume_rpcapi

PROJECT_PREFIX = '/v3/{project_id}'


class VolumeApp(falcon.App):
    """falcon.App whose WSGI entry runs the outer filters before falcon sees the request."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._entry = self._falcon
        # (path, resource, suffix) of every route, for the OpenAPI document.
        self.routes: list[tuple[str, object, str | None]] = []

    def add_route(self, uri_template: str, resource, **kwargs) -> None:
        super().add_route(uri_template, resource, **kwargs)
        self.routes.append((uri_template, resource, kwargs.get('suffix')))

    def _falcon(self, env, start_response):
        return super().__call__(env, start_response)

    def wrap(self, wsgi_filter) -> None:
        """Put *wsgi_filter(app)* around the current WSGI entry (outermost last)."""
        self._entry = wsgi_filter(self._entry)

    def __call__(self, env, start_response):
        return self._entry(env, start_response)


def _v3_only(filtered):
    """A filter that sends /v3 requests through *filtered* and the rest straight in."""
    def wrap(app):
        inner = filtered(app)

        def dispatch(env, start_response):
            target = inner if middleware.is_v3(env.get('PATH_INFO', '')) else app
            return target(env, start_response)
        return dispatch
    return wrap


class RPCClients:
    """The RPC clients resources cast through, each built on first use.

    NOTE(outage): their sends give up after `rpc_send_retries`, so a request made while the
    broker is down is answered 503 (and its writes undone) instead of hanging.
    """

    def __init__(self, conf):
        self._conf = conf
        self._retry = None if conf.rpc_send_retries < 0 else conf.rpc_send_retries

    @functools.cached_property
    def scheduler(self) -> scheduler_rpcapi.SchedulerAPI:
        return scheduler_rpcapi.SchedulerAPI(self._conf, retry=self._retry)

    @functools.cached_property
    def volume(self) -> volume_rpcapi.VolumeAPI:
        return volume_rpcapi.VolumeAPI(self._conf, retry=self._retry)

    @functools.cached_property
    def backup(self) -> backup_rpcapi.BackupAPI:
        return backup_rpcapi.BackupAPI(self._conf, retry=self._retry)



def _add_v3_route(app: VolumeApp, path: str, resource, **kwargs) -> None:
    """Serve *path* under /v3 both with and without a /{project_id} prefix, as Cinder."""
    app.add_route('/v3' + path, resource, **kwargs)
    app.add_route(PROJECT_PREFIX + path, resource, **kwargs)


def _add_type_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer) -> None:
    """Volume types, their extra specs and access, and per-project default types."""
    notifiers = type_operations.Notifiers(conf)
    _add_v3_route(app, '/types', types.Types(conf, db, enforcer, notifiers))
    _add_v3_route(app, '/types/{type_id}', types.Type(conf, db, enforcer, notifiers))
    _add_v3_route(app, '/types/{type_id}/action', types.TypeAction(db, enforcer, notifiers))
    _add_v3_route(app, '/types/{type_id}/extra_specs',
                  type_extra_specs.TypeExtraSpecs(db, enforcer, notifiers))
    _add_v3_route(app, '/types/{type_id}/extra_specs/{key}',
                  type_extra_specs.TypeExtraSpec(db, enforcer, notifiers))
    _add_v3_route(app, '/types/{type_id}/os-volume-type-access',
                  type_access.TypeAccess(db, enforcer))
    encryption = (db, enforcer, encryption_operations.notifier(conf))
    _add_v3_route(app, '/types/{type_id}/encryption',
                  volume_type_encryption.TypeEncryption(*encryption))
    _add_v3_route(app, '/types/{type_id}/encryption/{key}',
                  volume_type_encryption.TypeEncryptionItem(*encryption))
    _add_v3_route(app, '/default-types', default_types.DefaultTypes(db, enforcer))
    _add_v3_route(app, '/default-types/{target_project_id}',
                  default_types.DefaultType(db, enforcer))


def _add_group_type_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer) -> None:
    """Group types (3.11) and their group specs."""
    args = (conf, db, enforcer, group_type_operations.Notifiers(conf))
    _add_v3_route(app, '/group_types', group_types.GroupTypes(*args))
    _add_v3_route(app, '/group_types/{group_type_id}', group_types.GroupType(*args))
    _add_v3_route(app, '/group_types/{group_type_id}/group_specs', group_types.GroupSpecs(*args))
    _add_v3_route(app, '/group_types/{group_type_id}/group_specs/{key}',
                  group_types.GroupSpec(*args))


def _add_group_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer, rpc) -> None:
    """Generic volume groups (3.13), their actions and group snapshots (3.14)."""
    args = (conf, db, enforcer, rpc)
    collection = groups.Groups(*args)
    _add_v3_route(app, '/groups', collection)
    _add_v3_route(app, '/groups/detail', collection, suffix='detail')
    _add_v3_route(app, '/groups/action', groups.GroupsFromSource(*args))
    _add_v3_route(app, '/groups/{group_id}', groups.Group(*args))
    _add_v3_route(app, '/groups/{group_id}/action', groups.GroupActions(*args))
    snapshots_ = group_snapshots.GroupSnapshots(*args)
    _add_v3_route(app, '/group_snapshots', snapshots_)
    _add_v3_route(app, '/group_snapshots/detail', snapshots_, suffix='detail')
    _add_v3_route(app, '/group_snapshots/{group_snapshot_id}',
                  group_snapshots.GroupSnapshot(*args))
    _add_v3_route(app, '/group_snapshots/{group_snapshot_id}/action',
                  group_snapshots.GroupSnapshotActions(*args))


def _add_qos_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer) -> None:
    """QoS specs and their associations with volume types (member actions as suffixes)."""
    args = (conf, db, enforcer, qos_operations.Notifier(conf))
    _add_v3_route(app, '/qos-specs', qos_specs.QoSSpecsCollection(*args))
    _add_v3_route(app, '/qos-specs/{specs_id}', qos_specs.QoSSpec(*args))
    actions = qos_specs.QoSSpecActions(*args)
    for action in ('delete_keys', 'associations', 'associate', 'disassociate',
                   'disassociate_all'):
        _add_v3_route(app, f'/qos-specs/{{specs_id}}/{action}', actions, suffix=action)


def _add_volume_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer, rpc,
                       turns: ListingTurns) -> None:
    """Volumes, their metadata and the os-* volume actions."""
    collection = volumes.Volumes(conf, db, enforcer, rpc, turns=turns)
    _add_v3_route(app, '/volumes', collection)
    _add_v3_route(app, '/volumes/detail', collection, suffix='detail')
    _add_v3_route(app, '/volumes/summary', collection, suffix='summary')
    _add_v3_route(app, '/volumes/{volume_id}', volumes.Volume(conf, db, enforcer, rpc))
    _add_v3_route(app, '/volumes/{volume_id}/action',
                  volume_actions.VolumeActions(conf, db, enforcer, rpc))
    _add_v3_route(app, '/volumes/{volume_id}/metadata',
                  metadata.Metadata(db, enforcer, volumes.METADATA))
    _add_v3_route(app, '/volumes/{volume_id}/metadata/{key}',
                  metadata.MetadataItem(db, enforcer, volumes.METADATA))
    _add_v3_route(app, '/volumes/{volume_id}/encryption',
                  volume_encryption_metadata.VolumeEncryption(db, enforcer))
    _add_v3_route(app, '/volumes/{volume_id}/encryption/{key}',
                  volume_encryption_metadata.VolumeEncryptionItem(db, enforcer))


def _add_transfer_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer) -> None:
    """Volume transfers: Cinder's legacy /os-volume-transfer and its v3 /volume-transfers."""
    for path, legacy in (('/os-volume-transfer', True), ('/volume-transfers', False)):
        collection = transfers.Transfers(conf, db, enforcer, legacy=legacy)
        _add_v3_route(app, path, collection)
        _add_v3_route(app, f'{path}/detail', collection, suffix='detail')
        _add_v3_route(app, path + '/{transfer_id}',
                      transfers.Transfer(conf, db, enforcer, legacy=legacy))
        _add_v3_route(app, path + '/{transfer_id}/accept',
                      transfers.TransferAccept(conf, db, enforcer, legacy=legacy))


def _add_snapshot_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer, rpc,
                         turns: ListingTurns) -> None:
    """Snapshots, their metadata and the snapshot actions."""
    collection = snapshots.Snapshots(conf, db, enforcer, rpc, turns=turns)
    _add_v3_route(app, '/snapshots', collection)
    _add_v3_route(app, '/snapshots/detail', collection, suffix='detail')
    _add_v3_route(app, '/snapshots/{snapshot_id}', snapshots.Snapshot(conf, db, enforcer, rpc))
    _add_v3_route(app, '/snapshots/{snapshot_id}/action',
                  snapshots.SnapshotActions(conf, db, enforcer, rpc))
    _add_v3_route(app, '/snapshots/{snapshot_id}/metadata',
                  metadata.Metadata(db, enforcer, snapshots.METADATA))
    _add_v3_route(app, '/snapshots/{snapshot_id}/metadata/{key}',
                  metadata.MetadataItem(db, enforcer, snapshots.METADATA))


def _add_backup_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer, rpc,
                       turns: ListingTurns) -> None:
    """Backups, restore, export/import records and the backup admin actions."""
    collection = backups.Backups(conf, db, enforcer, rpc, turns=turns)
    _add_v3_route(app, '/backups', collection)
    _add_v3_route(app, '/backups/detail', collection, suffix='detail')
    _add_v3_route(app, '/backups/import_record', collection, suffix='import_record')
    _add_v3_route(app, '/backups/{backup_id}', backups.Backup(conf, db, enforcer, rpc))
    restore = backups.BackupRestore(conf, db, enforcer, rpc)
    _add_v3_route(app, '/backups/{backup_id}/restore', restore)
    _add_v3_route(app, '/backups/{backup_id}/export_record', restore, suffix='export_record')
    _add_v3_route(app, '/backups/{backup_id}/action',
                  backups.BackupActions(conf, db, enforcer, rpc))


def _add_attachment_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer,
                           rpc) -> None:
    """Attachments (3.27) and their os-complete action (3.44)."""
    collection = attachments.Attachments(conf, db, enforcer, rpc)
    _add_v3_route(app, '/attachments', collection)
    _add_v3_route(app, '/attachments/detail', collection, suffix='detail')
    _add_v3_route(app, '/attachments/{attachment_id}',
                  attachments.Attachment(conf, db, enforcer, rpc))
    _add_v3_route(app, '/attachments/{attachment_id}/action',
                  attachments.AttachmentActions(conf, db, enforcer, rpc))


def _add_manage_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer, rpc) -> None:
    """Manage existing volumes and snapshots, on the v3 paths (3.8) and the legacy
    extension paths (3.0)."""
    for path, resource, legacy in (
            ('/manageable_volumes', manageable.ManageableVolumes, False),
            ('/os-volume-manage', manageable.ManageableVolumes, True),
            ('/manageable_snapshots', manageable.ManageableSnapshots, False),
            ('/os-snapshot-manage', manageable.ManageableSnapshots, True)):
        collection = resource(conf, db, enforcer, rpc, legacy=legacy)
        _add_v3_route(app, path, collection)
        _add_v3_route(app, f'{path}/detail', collection, suffix='detail')


def _add_quota_and_message_routes(app: falcon.App, conf, db: Database,
                                  enforcer: Enforcer) -> None:
    _add_v3_route(app, '/os-quota-sets/{target_project_id}',
                  quota_sets.QuotaSet(conf, db, enforcer))
    _add_v3_route(app, '/os-quota-sets/{target_project_id}/defaults',
                  quota_sets.QuotaSetDefaults(conf, db, enforcer))
    _add_v3_route(app, '/os-quota-class-sets/{class_name}',
                  quota_class_sets.QuotaClassSet(conf, db, enforcer))
    _add_v3_route(app, '/limits', limits.Limits(conf, db, enforcer))
    _add_v3_route(app, '/messages', messages.Messages(conf, db, enforcer))
    _add_v3_route(app, '/messages/{message_id}', messages.Message(conf, db, enforcer))


def _add_routes(app: falcon.App, conf, db: Database, enforcer: Enforcer, rpc) -> None:
    """THE route table."""
    version_doc = versions.Versions(conf)
    app.add_route('/', version_doc)
    app.add_route('/v3/', version_doc, suffix='v3')
    app.add_route(openapi.PATH, openapi_resource.OpenAPI(app.routes))
    _add_v3_route(app, '/os-services', services.Services(conf, db, enforcer, rpc))
    for name, action in services.MANAGEMENT_ACTIONS.items():
        _add_v3_route(app, f'/os-services/{name}', action(conf, db, enforcer, rpc))
    _add_v3_route(app, '/os-services/{action}', services.ServiceAction(db, enforcer))
    _add_v3_route(app, '/clusters', clusters.Clusters(conf, db, enforcer))
    _add_v3_route(app, '/clusters/detail', clusters.Clusters(conf, db, enforcer), suffix='detail')
    _add_v3_route(app, '/clusters/{cluster_name}', clusters.Cluster(conf, db, enforcer))
    _add_v3_route(app, '/os-hosts', hosts.Hosts(conf, db, enforcer))
    _add_v3_route(app, '/os-hosts/{host}', hosts.Host(db, enforcer))
    _add_v3_route(app, '/os-availability-zone', availability_zones.AvailabilityZones(db))
    _add_v3_route(app, '/extensions', extensions.Extensions())
    _add_v3_route(app, '/extensions/{alias}', extensions.Extension())
    _add_type_routes(app, conf, db, enforcer)
    _add_qos_routes(app, conf, db, enforcer)
    _add_group_type_routes(app, conf, db, enforcer)
    _add_group_routes(app, conf, db, enforcer, rpc)
    # NOTE(gil): one set of turns per process, for every kind of listing.
    turns = ListingTurns(conf.osapi_volume_listings_at_once)
    _add_volume_routes(app, conf, db, enforcer, rpc, turns)
    _add_snapshot_routes(app, conf, db, enforcer, rpc, turns)
    _add_attachment_routes(app, conf, db, enforcer, rpc)
    _add_backup_routes(app, conf, db, enforcer, rpc, turns)
    _add_manage_routes(app, conf, db, enforcer, rpc)
    _add_quota_and_message_routes(app, conf, db, enforcer)
    _add_transfer_routes(app, conf, db, enforcer)
    _add_v3_route(app, '/scheduler-stats/get_pools', scheduler_stats.Pools(db, enforcer, rpc))
    _add_v3_route(app, '/capabilities/{host}', capabilities.Capabilities(db, enforcer, rpc))
    _add_v3_route(app, '/workers/cleanup', workers.WorkersCleanup(db, enforcer, rpc))


def create_app(conf, *, db: Database | None = None, rpc=None,
               use_auth_token: bool = True,
               metrics: api_metrics.RequestMetrics | None = None) -> falcon.App:
    """The volume API for *conf*.

    *db* defaults to `[database] connection`; *rpc* holds the `scheduler` and `volume`
    rpcapi clients resources cast through (built from *conf* when not given).
    *use_auth_token=False* (tests only) trusts the identity headers auth_token would set,
    so the keystone header→context path runs without Keystone. *metrics* times every
    request (outermost, so the other middleware's refusals count too).
    """
    db = db or Database.from_conf(conf)
    identity = (middleware.NoAuth() if conf.auth_strategy == 'noauth'
                else middleware.KeystoneContext())
    app = VolumeApp(middleware=[
        *([metrics] if metrics is not None else []),
        middleware.RequestBody(conf.osapi_max_request_body_size),
        identity,
        middleware.RequestLog(),
        path_rules.PathRules(),
        middleware.VersionNegotiation(),
        middleware.QueryParams(),
        middleware.ProjectCheck(conf.project_id_regex),
    ])
    app.resp_options.media_handlers[falcon.MEDIA_JSON] = falcon.media.JSONHandler(dumps=body.dumps)
    # NOTE(faults): falcon's own HTTPError handler is more specific than Exception's,
    # so it is replaced explicitly: 404/405 bodies are Cinder faults too.
    app.add_error_handler(Exception, faults.handle)
    app.add_error_handler(falcon.HTTPError, faults.handle)
    _add_routes(app, conf, db, Enforcer(conf), rpc or RPCClients(conf))
    if conf.auth_strategy == 'keystone' and use_auth_token:
        # NOTE(rss): imported only here; with noauth, keystonemiddleware and what it loads
        # (oslo.cache, keystoneclient, requests) stay out of the API's workers.
        from keystonemiddleware import auth_token
        app.wrap(_v3_only(
            lambda inner: auth_token.AuthProtocol(inner, {'oslo_config_config': conf})))
    app.wrap(faults.guard)
    app.wrap(request_id.request_ids)
    # NOTE(healthcheck): outside auth and the request id, as Cinder's api-paste urlmap.
    app.wrap(healthcheck.serving(conf, db=db))
    return app
