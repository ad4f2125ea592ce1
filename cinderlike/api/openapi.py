"""cinderlike-api: the OpenAPI 3.1 document of every served route, built from the route
table (app.routes), the request schemas (api/schemas/*) and the view schemas
(api/schemas/responses.py).

Served without authentication at `GET /openapi.json`, committed as doc/api/openapi.json
(`make openapi` writes it; tests/unit/api/test_openapi.py fails when it is stale).
Bodies are those of the newest microversion; each operation's `x-openstack-microversions`
says where earlier versions differ. Every /v3 path is also served as /v3/{project_id}/...
"""

import dataclasses
import json
import re

import falcon

from cinderlike.api import microversions as mv
from cinderlike.api.resources import (
    backups,
    clusters,
    groups,
    services,
    snapshots,
    types,
    volume_actions,
)
from cinderlike.api.schemas import attachments as attachment_schemas
from cinderlike.api.schemas import backups as backup_schemas
from cinderlike.api.schemas import group_snapshots as group_snapshot_schemas
from cinderlike.api.schemas import group_types as group_type_schemas
from cinderlike.api.schemas import groups as group_schemas
from cinderlike.api.schemas import manageable as manage_schemas
from cinderlike.api.schemas import qos_specs as qos_schemas
from cinderlike.api.schemas import quota_sets as quota_schemas
from cinderlike.api.schemas import responses as r
from cinderlike.api.schemas import services as service_schemas
from cinderlike.api.schemas import snapshots as snapshot_schemas
from cinderlike.api.schemas import transfers as transfer_schemas
from cinderlike.api.schemas import types as type_schemas
from cinderlike.api.schemas import volume_type_encryption as encryption_schemas
from cinderlike.api.schemas import volumes as volume_schemas
from cinderlike.api.schemas import workers as worker_schemas

PATH = '/openapi.json'


@dataclasses.dataclass(frozen=True)
class Op:
    """One operation: what it does, its body, its success answer and version notes."""

    summary: str
    status: int
    response: dict | None = None
    request: dict | None = None
    query: tuple[str, ...] = ()
    since: str | None = None
    notes: str = ''
    # Other success codes, answered without a body.
    bodiless: tuple[int, ...] = ()


def _one_of(schemas) -> dict:
    return {'oneOf': list(schemas)}


_LIST = ('limit', 'marker', 'offset', 'sort', 'sort_key', 'sort_dir')
_QUERY = {
    'limit': {'type': 'integer'}, 'marker': {'type': 'string'}, 'offset': {'type': 'integer'},
    'sort': {'type': 'string'}, 'sort_key': {'type': 'string'},
    'sort_dir': {'type': 'string', 'enum': ['asc', 'desc']},
    'all_tenants': {'type': 'string'}, 'with_count': {'type': 'string'},
    'name': {'type': 'string'}, 'status': {'type': 'string'},
    'metadata': {'type': 'string'}, 'volume_id': {'type': 'string'},
    'cascade': {'type': 'string'}, 'force': {'type': 'string'},
    'usage': {'type': 'string'}, 'binary': {'type': 'string'}, 'host': {'type': 'string'},
    'is_public': {'type': 'string'}, 'vol_type_id': {'type': 'string'},
    'detail': {'type': 'string'}, 'project_id': {'type': 'string'},
    'zone': {'type': 'string'},
    'cluster': {'type': 'string'},
    'list_volume': {'type': 'string'},
}
_VOLUME_LIST = _LIST + ('all_tenants', 'with_count', 'name', 'status', 'metadata')

_VOLUME_ACTIONS = _one_of(action.schema for action in volume_actions.ACTIONS.values())
_SNAPSHOT_ACTIONS = _one_of(entry[0] for entry in snapshots.SnapshotActions._ACTIONS.values())
_TYPE_ACTIONS = _one_of(entry[0] for entry in types._ACTIONS.values())
_CLUSTER_ACTIONS = _one_of(entry[0] for entry in clusters._ACTIONS.values())
_SERVICE_ACTIONS = _one_of(entry[0] for entry in services._ACTIONS.values())
_BACKUP_ACTIONS = _one_of(entry[0] for entry in backups.BackupActions._ACTIONS.values())
_BACKUP_LIST = _LIST + ('all_tenants', 'with_count', 'name', 'status', 'volume_id')
_GROUP_ACTIONS = _one_of(entry[0] for entry in groups.GroupActions._ACTIONS.values())
_GROUP_LIST = _LIST + ('all_tenants', 'name', 'list_volume')

_MANAGE_NOTE = ('/manageable_volumes and /manageable_snapshots since 3.8, the '
                '/os-volume-manage and /os-snapshot-manage paths since 3.0; cluster (3.17) '
                'instead of host in the listings.')

# (resource class, responder) -> Op. tests/unit/api/test_openapi.py checks that every
# routed responder has its entry.
OPERATIONS = {
    ('Versions', 'on_get'): Op('The API versions', 300, r.versions),
    ('Versions', 'on_get_v3'): Op('The v3 version document', 200, r.versions),
    ('OpenAPI', 'on_get'): Op('This document', 200, r.openapi),
    ('Services', 'on_get'): Op('List services (admin)', 200, r.services,
                               query=('host', 'binary')),
    ('ServiceAction', 'on_put'): Op(
        'Enable, disable or disable-log-reason a service (admin)', 200, r.service_update,
        _SERVICE_ACTIONS),
    ('Freeze', 'on_put'): Op('Freeze a backend: no management operations (admin)', 200,
                             request=service_schemas.freeze_and_thaw, bodiless=(200,)),
    ('Thaw', 'on_put'): Op('Thaw a frozen backend (admin); a text when its driver refused',
                           200, request=service_schemas.freeze_and_thaw, bodiless=(200,)),
    ('FailoverHost', 'on_put'): Op('Fail a replicating backend over (admin)', 202,
                                   request=service_schemas.failover_host, bodiless=(202,)),
    ('SetLog', 'on_put'): Op('Set the log level of services (admin)', 202,
                             request=service_schemas.set_log, bodiless=(202,),
                             since=mv.LOG_LEVEL),
    ('GetLog', 'on_put'): Op('The log levels of services (admin)', 200, r.log_levels,
                             service_schemas.get_log, since=mv.LOG_LEVEL),
    ('Clusters', 'on_get'): Op('List clusters (admin)', 200, r.clusters, since=mv.CLUSTER_SUPPORT),
    ('Clusters', 'on_get_detail'): Op('List clusters with details (admin)', 200, r.clusters,
                                      since=mv.CLUSTER_SUPPORT),
    ('Cluster', 'on_get'): Op('Show a cluster (admin)', 200, r.cluster, query=('binary',),
                              since=mv.CLUSTER_SUPPORT),
    ('Cluster', 'on_put'): Op('Enable or disable a cluster: {cluster_name} is the action',
                              200, r.cluster, _CLUSTER_ACTIONS, since=mv.CLUSTER_SUPPORT),
    ('AvailabilityZones', 'on_get'): Op('List availability zones', 200,
                                        r.availability_zones),
    ('Extensions', 'on_get'): Op('List extensions', 200, r.extensions),
    ('Extension', 'on_get'): Op('Show an extension by alias', 200, r.extension),
    ('Types', 'on_get'): Op('List volume types', 200, r.volume_types,
                            query=_LIST + ('is_public',)),
    ('Types', 'on_post'): Op('Create a volume type (admin)', 200, r.volume_type,
                             type_schemas.create),
    ('Type', 'on_get'): Op('Show a volume type (`default`: the default one)', 200,
                           r.volume_type),
    ('Type', 'on_put'): Op('Update a volume type (admin)', 200, r.volume_type,
                           type_schemas.update),
    ('Type', 'on_delete'): Op('Delete a volume type (admin)', 202),
    ('TypeAction', 'on_post'): Op('Add or remove project access to a private type (admin)',
                                  202, request=_TYPE_ACTIONS),
    ('TypeExtraSpecs', 'on_get'): Op('List extra specs', 200, r.extra_specs),
    ('TypeExtraSpecs', 'on_post'): Op('Set extra specs (admin)', 200, r.extra_specs,
                                      type_schemas.extra_specs_create),
    ('TypeExtraSpec', 'on_get'): Op('Show an extra spec', 200, r.extra_spec),
    ('TypeExtraSpec', 'on_put'): Op('Update an extra spec (admin)', 200, r.extra_spec,
                                    type_schemas.extra_specs_update),
    ('TypeExtraSpec', 'on_delete'): Op('Delete an extra spec (admin)', 202),
    ('TypeEncryption', 'on_get'): Op("Show a type's encryption, `{}` if none (admin)", 200,
                                     r.type_encryption),
    ('TypeEncryption', 'on_post'): Op('Encrypt an unused volume type (admin)', 200,
                                      r.type_encryption_specs, encryption_schemas.create),
    ('TypeEncryptionItem', 'on_get'): Op("Show one field of a type's encryption (admin)", 200,
                                         r.type_encryption_item),
    ('TypeEncryptionItem', 'on_put'): Op("Update an unused type's encryption (admin)", 200,
                                         r.type_encryption_specs, encryption_schemas.update),
    ('TypeEncryptionItem', 'on_delete'): Op("Delete an unused type's encryption (admin)", 202),
    ('GroupTypes', 'on_get'): Op('List group types', 200, r.group_types,
                                 query=_LIST + ('is_public',), since=mv.GROUP_TYPE),
    ('GroupTypes', 'on_post'): Op('Create a group type (admin)', 202, r.group_type,
                                  group_type_schemas.create, since=mv.GROUP_TYPE),
    ('GroupType', 'on_get'): Op('Show a group type (`default`: default_group_type)', 200,
                                r.group_type, since=mv.GROUP_TYPE),
    ('GroupType', 'on_put'): Op('Update a group type (admin)', 200, r.group_type,
                                group_type_schemas.update, since=mv.GROUP_TYPE),
    ('GroupType', 'on_delete'): Op('Delete a group type (admin)', 202, since=mv.GROUP_TYPE),
    ('GroupSpecs', 'on_get'): Op('List group specs (admin)', 200, r.group_specs,
                                 since=mv.GROUP_TYPE),
    ('GroupSpecs', 'on_post'): Op('Set group specs (admin)', 202, r.group_specs,
                                  group_type_schemas.specs_create, since=mv.GROUP_TYPE),
    ('GroupSpec', 'on_get'): Op('Show a group spec (admin)', 200, r.extra_spec,
                                since=mv.GROUP_TYPE),
    ('GroupSpec', 'on_put'): Op('Update a group spec (admin)', 200, r.extra_spec,
                                group_type_schemas.specs_update, since=mv.GROUP_TYPE),
    ('GroupSpec', 'on_delete'): Op('Delete a group spec (admin)', 202, since=mv.GROUP_TYPE),
    ('Groups', 'on_get'): Op('List groups', 200, r.groups, query=_GROUP_LIST,
                             since=mv.GROUP_VOLUME, notes='`name~` from 3.34.'),
    ('Groups', 'on_get_detail'): Op(
        'List groups with details', 200, r.groups_detail, query=_GROUP_LIST,
        since=mv.GROUP_VOLUME,
        notes='group_snapshot_id/source_group_id from 3.14, `volumes` with list_volume from '
              '3.25, replication_status from 3.38, project_id (admin) from 3.58.'),
    ('Groups', 'on_post'): Op('Create a group', 202, r.group_summary, group_schemas.create,
                              since=mv.GROUP_VOLUME),
    ('GroupsFromSource', 'on_post'): Op(
        'create-from-src: a group from a group snapshot or a source group', 202,
        r.group_summary, group_schemas.create_from_source, since=mv.GROUP_SNAPSHOTS),
    ('Group', 'on_get'): Op('Show a group', 200, r.group, query=('list_volume',),
                            since=mv.GROUP_VOLUME),
    ('Group', 'on_put'): Op('Rename a group, add or remove its volumes', 202,
                            request=group_schemas.update, since=mv.GROUP_VOLUME),
    ('GroupActions', 'on_post'): Op(
        'A group action: delete (delete-volumes), reset_status (admin, 3.20), the '
        'replication actions (3.38; refused: no backend replicates)', 202,
        request=_GROUP_ACTIONS, since=mv.GROUP_VOLUME),
    ('GroupSnapshots', 'on_get'): Op('List group snapshots', 200, r.group_snapshots,
                                     query=_LIST + ('all_tenants', 'name', 'status'),
                                     since=mv.GROUP_SNAPSHOTS,
                                     notes='Query parameters from 3.29.'),
    ('GroupSnapshots', 'on_get_detail'): Op(
        'List group snapshots with details', 200, r.group_snapshots_detail,
        query=_LIST + ('all_tenants', 'name', 'status'), since=mv.GROUP_SNAPSHOTS,
        notes='Query parameters from 3.29; project_id (admin) from 3.58.'),
    ('GroupSnapshots', 'on_post'): Op('Snapshot every volume of a group', 202,
                                      r.group_snapshot_summary, group_snapshot_schemas.create,
                                      since=mv.GROUP_SNAPSHOTS),
    ('GroupSnapshot', 'on_get'): Op('Show a group snapshot', 200, r.group_snapshot,
                                    since=mv.GROUP_SNAPSHOTS),
    ('GroupSnapshot', 'on_delete'): Op('Delete a group snapshot and its snapshots', 202,
                                       since=mv.GROUP_SNAPSHOTS),
    ('GroupSnapshotActions', 'on_post'): Op(
        'reset_status of a group snapshot (admin)', 202,
        request=group_snapshot_schemas.reset_status, since=mv.GROUP_SNAPSHOT_RESET_STATUS),
    ('TypeAccess', 'on_get'): Op('List the projects of a private type (admin)', 200,
                                 r.type_access),
    ('DefaultTypes', 'on_get'): Op('List default types (admin)', 200, r.default_types,
                                   since=mv.DEFAULT_TYPE_OVERRIDES),
    ('DefaultType', 'on_get'): Op("Show a project's default type", 200, r.default_type,
                                  since=mv.DEFAULT_TYPE_OVERRIDES),
    ('DefaultType', 'on_put'): Op("Set a project's default type (admin)", 200, r.default_type,
                                  type_schemas.default_type_set,
                                  since=mv.DEFAULT_TYPE_OVERRIDES),
    ('DefaultType', 'on_delete'): Op("Unset a project's default type (admin)", 204,
                                     since=mv.DEFAULT_TYPE_OVERRIDES),
    ('QoSSpecsCollection', 'on_get'): Op('List QoS specs (admin)', 200, r.qos_specs_list,
                                         query=_LIST),
    ('QoSSpecsCollection', 'on_post'): Op('Create QoS specs (admin)', 200, r.qos_specs,
                                          qos_schemas.create),
    ('QoSSpec', 'on_get'): Op('Show QoS specs (admin)', 200, r.qos_specs),
    ('QoSSpec', 'on_put'): Op('Set QoS spec keys (admin)', 200, r.qos_specs_keys,
                              qos_schemas.set_keys),
    ('QoSSpec', 'on_delete'): Op('Delete QoS specs (admin)', 202, query=('force',)),
    ('QoSSpecActions', 'on_put_delete_keys'): Op('Unset QoS spec keys (admin)', 202,
                                                 request=qos_schemas.unset_keys),
    ('QoSSpecActions', 'on_get_associations'): Op('List the types using QoS specs (admin)',
                                                  200, r.qos_associations),
    ('QoSSpecActions', 'on_get_associate'): Op('Associate QoS specs with a type (admin)', 202,
                                               query=('vol_type_id',)),
    ('QoSSpecActions', 'on_get_disassociate'): Op(
        'Disassociate QoS specs from a type (admin)', 202, query=('vol_type_id',)),
    ('QoSSpecActions', 'on_get_disassociate_all'): Op(
        'Disassociate QoS specs from every type (admin)', 202),
    ('Volumes', 'on_get'): Op('List volumes', 200, r.volumes, query=_VOLUME_LIST),
    ('Volumes', 'on_get_detail'): Op('List volumes with details', 200, r.volumes_detail,
                                     query=_VOLUME_LIST),
    ('Volumes', 'on_get_summary'): Op('Volume count, size and metadata', 200,
                                      r.volume_summary, query=('all_tenants',),
                                      since=mv.VOLUME_SUMMARY),
    ('Volumes', 'on_post'): Op('Create a volume', 202, r.volume, volume_schemas.create_v3_53,
                               notes='`backup_id` from 3.47. Up to 3.52 unknown volume '
                                     'fields are ignored.'),
    ('Volume', 'on_get'): Op('Show a volume', 200, r.volume),
    ('Volume', 'on_put'): Op('Update a volume', 200, r.volume, volume_schemas.update_v3_53,
                             notes='Up to 3.52 an empty update is accepted.'),
    ('Volume', 'on_delete'): Op('Delete a volume', 202, query=('cascade', 'force'),
                                notes='`force` from 3.23.'),
    ('VolumeActions', 'on_post'): Op(
        'A volume action: os-extend, os-reset_status, os-force_delete, os-set_bootable, '
        'os-update_readonly_flag, revert (3.40), os-unmanage and the legacy attach actions',
        202,
        request=_VOLUME_ACTIONS, bodiless=(200,),
        notes='os-set_bootable answers 200 without a body, os-initialize_connection 200 '
              'with connection_info.'),
    ('Metadata', 'on_get'): Op('List metadata', 200, r.metadata),
    ('Metadata', 'on_post'): Op('Add metadata', 200, r.metadata,
                                volume_schemas.metadata_create),
    ('Metadata', 'on_put'): Op('Replace metadata', 200, r.metadata,
                               volume_schemas.metadata_create),
    ('MetadataItem', 'on_get'): Op('Show a metadata item', 200, r.meta),
    ('MetadataItem', 'on_put'): Op('Set a metadata item', 200, r.meta,
                                   volume_schemas.metadata_update_item),
    ('MetadataItem', 'on_delete'): Op('Delete a metadata item', 200),
    ('Snapshots', 'on_get'): Op('List snapshots', 200, r.snapshots, query=_VOLUME_LIST),
    ('Snapshots', 'on_get_detail'): Op('List snapshots with details', 200, r.snapshots,
                                       query=_VOLUME_LIST),
    ('Snapshots', 'on_post'): Op('Create a snapshot', 202, r.snapshot,
                                 snapshot_schemas.create),
    ('Snapshot', 'on_get'): Op('Show a snapshot', 200, r.snapshot),
    ('Snapshot', 'on_put'): Op('Update a snapshot', 200, r.snapshot, snapshot_schemas.update),
    ('Snapshot', 'on_delete'): Op('Delete a snapshot', 202),
    ('SnapshotActions', 'on_post'): Op(
        'A snapshot action: os-reset_status, os-update_snapshot_status, os-force_delete, '
        'os-unmanage', 202,
        request=_SNAPSHOT_ACTIONS),
    ('ManageableVolumes', 'on_get'): Op(
        'List the volumes a backend could manage', 200, r.manageable_volumes,
        query=_LIST + ('host', 'cluster'), notes=_MANAGE_NOTE),
    ('ManageableVolumes', 'on_get_detail'): Op(
        'List the volumes a backend could manage, with details', 200, r.manageable_volumes,
        query=_LIST + ('host', 'cluster'), notes=_MANAGE_NOTE),
    ('ManageableVolumes', 'on_post'): Op(
        'Manage an existing backend volume', 202, r.volume,
        manage_schemas.volume_manage_create_v3_16, notes=_MANAGE_NOTE + ' host or cluster '
        '(3.16) names the backend.'),
    ('ManageableSnapshots', 'on_get'): Op(
        'List the snapshots a backend could manage', 200, r.manageable_snapshots,
        query=_LIST + ('host', 'cluster'), notes=_MANAGE_NOTE),
    ('ManageableSnapshots', 'on_get_detail'): Op(
        'List the snapshots a backend could manage, with details', 200,
        r.manageable_snapshots, query=_LIST + ('host', 'cluster'), notes=_MANAGE_NOTE),
    ('ManageableSnapshots', 'on_post'): Op(
        'Manage an existing backend snapshot', 202, r.snapshot,
        manage_schemas.snapshot_manage_create, notes=_MANAGE_NOTE),
    ('Attachments', 'on_get'): Op('List attachments', 200, r.attachments,
                                  query=_LIST + ('all_tenants', 'volume_id', 'status'),
                                  since=mv.NEW_ATTACH),
    ('Attachments', 'on_get_detail'): Op('List attachments with details', 200,
                                         r.attachments, query=_LIST + ('all_tenants',),
                                         since=mv.NEW_ATTACH),
    ('Attachments', 'on_post'): Op('Create an attachment', 200, r.attachment,
                                   attachment_schemas.create_v3_54, since=mv.NEW_ATTACH,
                                   notes='`mode` from 3.54.'),
    ('Attachment', 'on_get'): Op('Show an attachment', 200, r.attachment, since=mv.NEW_ATTACH),
    ('Attachment', 'on_put'): Op('Connect an attachment', 200, r.attachment,
                                 attachment_schemas.update, since=mv.NEW_ATTACH),
    ('Attachment', 'on_delete'): Op('Delete an attachment', 200, since=mv.NEW_ATTACH),
    ('AttachmentActions', 'on_post'): Op('os-complete', 204,
                                         request=attachment_schemas.complete,
                                         since=mv.NEW_ATTACH_COMPLETION),
    ('QuotaSet', 'on_get'): Op("Show a project's quotas", 200, r.quota_set, query=('usage',)),
    ('QuotaSet', 'on_put'): Op("Update a project's quotas (admin)", 200, r.quota_set,
                               quota_schemas.update_quota),
    ('QuotaSet', 'on_delete'): Op("Reset a project's quotas to the defaults (admin)", 200),
    ('QuotaSetDefaults', 'on_get'): Op('Show the default quotas', 200, r.quota_set),
    ('QuotaClassSet', 'on_get'): Op('Show a quota class (admin)', 200, r.quota_class_set),
    ('QuotaClassSet', 'on_put'): Op('Update a quota class (admin)', 200, r.quota_class_set,
                                    quota_schemas.update_quota_class),
    ('Limits', 'on_get'): Op('Absolute limits and usage', 200, r.limits,
                             query=('project_id',)),
    ('Messages', 'on_get'): Op('List user messages', 200, r.messages, query=_LIST,
                               since=mv.MESSAGES),
    ('Message', 'on_get'): Op('Show a user message', 200, r.message, since=mv.MESSAGES),
    ('Message', 'on_delete'): Op('Delete a user message', 204, since=mv.MESSAGES),
    ('Transfers', 'on_get'): Op('List volume transfers', 200, r.transfers,
                                query=_LIST + ('all_tenants',)),
    ('Transfers', 'on_get_detail'): Op('List volume transfers with details', 200, r.transfers,
                                       query=_LIST + ('all_tenants',)),
    ('Transfers', 'on_post'): Op('Create a volume transfer (the auth key is shown once)', 202,
                                 r.transfer, transfer_schemas.create_v3_55,
                                 notes='`no_snapshots` from 3.55.'),
    ('Transfer', 'on_get'): Op('Show a volume transfer', 200, r.transfer),
    ('Transfer', 'on_delete'): Op('Delete a volume transfer', 202),
    ('TransferAccept', 'on_post'): Op('Accept a volume transfer', 202, r.transfer,
                                      transfer_schemas.accept),
    ('Backups', 'on_get'): Op('List backups for project', 200, r.backups, query=_BACKUP_LIST,
                              notes='`with_count` from 3.45.'),
    ('Backups', 'on_get_detail'): Op(
        'List backups with detail', 200, r.backups_detail, query=_BACKUP_LIST,
        notes='`with_count` from 3.45; os-backup-project-attr:project_id from 3.18, '
              '`metadata` from 3.43, `user_id` from 3.56, `encryption_key_id` from 3.64.'),
    ('Backups', 'on_post'): Op('Create a backup', 202, r.backup_summary,
                               backup_schemas.create_v3_51,
                               notes='`metadata` from 3.43, `availability_zone` from 3.51.'),
    ('Backups', 'on_post_import_record'): Op('Import a backup (admin)', 201, r.backup_summary,
                                             backup_schemas.import_record),
    ('Backup', 'on_get'): Op(
        'Show backup detail', 200, r.backup,
        notes='os-backup-project-attr:project_id from 3.18, `metadata` from 3.43, '
              '`user_id` from 3.56, `encryption_key_id` from 3.64.'),
    ('Backup', 'on_put'): Op('Update a backup', 200, r.backup_summary,
                             backup_schemas.update_v3_43, since=mv.BACKUP_UPDATE,
                             notes='`metadata` from 3.43.'),
    ('Backup', 'on_delete'): Op('Delete a backup', 202),
    ('BackupRestore', 'on_post'): Op(
        'Restore a backup (to a new volume without `volume_id`)', 202, r.backup_restore,
        backup_schemas.restore),
    ('BackupRestore', 'on_get_export_record'): Op('Export a backup (admin)', 200,
                                                  r.backup_record),
    ('BackupActions', 'on_post'): Op(
        "A backup action: os-reset_status (reset a backup's status), os-force_delete "
        '(force-delete a backup), both admin', 202, request=_BACKUP_ACTIONS),
    ('Pools', 'on_get'): Op('Back-end pools (admin)', 200, r.pools, query=('detail',)),
    ('Hosts', 'on_get'): Op('List enabled service hosts (admin)', 200, r.hosts,
                            query=('zone',)),
    ('Host', 'on_get'): Op("A volume host's volumes and snapshots, per project (admin)", 200,
                           r.host),
    ('VolumeEncryption', 'on_get'): Op("A volume's key id and its type's encryption", 200,
                                       r.volume_encryption),
    ('VolumeEncryptionItem', 'on_get'): Op("One field of a volume's encryption metadata",
                                           200, r.volume_encryption_item),
    ('Capabilities', 'on_get'): Op("A back end's capabilities (admin)", 200, r.capabilities),
    ('WorkersCleanup', 'on_post'): Op('Clean up the work of services that are down (admin)',
                                      202, r.workers_cleanup, worker_schemas.cleanup,
                                      since=mv.WORKERS_CLEANUP),
}

_PARAM = re.compile(r'{(\w+)}')


def _responders(resource, suffix: str | None) -> dict[str, str]:
    """{HTTP method: responder name} that *resource* serves for *suffix*."""
    served = falcon.routing.map_http_methods(resource, suffix=suffix)
    return {method: responder.__name__ for method, responder in sorted(served.items())}


def _content(schema: dict) -> dict:
    return {'application/json': {'schema': schema}}


def _operation(path: str, method: str, key: tuple[str, str]) -> dict:
    op = OPERATIONS[key]
    parameters = [{'name': name, 'in': 'path', 'required': True, 'schema': {'type': 'string'}}
                  for name in _PARAM.findall(path)]
    parameters += [{'name': name, 'in': 'query', 'required': False, 'schema': _QUERY[name]}
                   for name in op.query]
    success = {'description': op.summary}
    if op.response is not None:
        success['content'] = _content(op.response)
    responses = {str(op.status): success}
    responses.update((str(code), {'description': op.summary}) for code in op.bodiless)
    responses['default'] = {'description': "A Cinder fault", 'content': _content(r.fault)}
    shown = {'operationId': f'{key[0]}.{key[1]}', 'summary': op.summary,
             'responses': responses}
    if parameters:
        shown['parameters'] = parameters
    if op.request is not None:
        shown['requestBody'] = {'required': True, 'content': _content(op.request)}
    notes = [f'Since microversion {op.since}.'] if op.since else []
    if op.notes:
        notes.append(op.notes)
    if notes:
        shown['x-openstack-microversions'] = ' '.join(notes)
    return shown


def document(routes) -> dict:
    """The OpenAPI 3.1 document of *routes*: (path, resource, suffix) as app.routes holds;
    the /v3/{project_id} copies of the /v3 paths are said once, in the description.

    :raises KeyError: a routed responder without its entry in OPERATIONS.
    """
    paths: dict[str, dict] = {}
    for path, resource, suffix in routes:
        if path.startswith('/v3/{project_id}'):
            continue
        for method, responder in _responders(resource, suffix).items():
            key = (type(resource).__name__, responder)
            paths.setdefault(path, {})[method.lower()] = _operation(path, method, key)
    return {
        'openapi': '3.1.0',
        'info': {
            'title': 'cinderlike Block Storage API v3',
            'version': str(mv.MAX_VERSION),
            'description': (
                f'Cinder v3, microversions {mv.MIN_VERSION} to {mv.MAX_VERSION}: request '
                'bodies are those of the newest version (x-openstack-microversions notes the '
                'differences); ask for one with `OpenStack-API-Version: volume X.Y`. Every '
                '/v3 path is also served as /v3/{project_id}/..., where the project must be '
                "the token's."),
        },
        'paths': dict(sorted(paths.items())),
        'jsonSchemaDialect': 'https://spec.openapis.org/oas/3.1/dialect/base',
    }


def render(document_: dict) -> str:
    """The committed text of *document_* (doc/api/openapi.json)."""
    return json.dumps(document_, indent=1, ensure_ascii=False) + '\n'
