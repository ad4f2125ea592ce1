"""cinderlike-api: JSON schemas of what every view in api/views/ answers (the OpenAPI
document's response bodies; tests/functional/test_openapi_fuzz.py holds answers to them).

Each names the fields the view always writes; fields later microversions or policies add
are optional, and views may add more (`additionalProperties` stays open, as clients must
ignore fields they do not know).
"""

_STR = {'type': 'string'}
_TEXT = {'type': ['string', 'null']}
_INT = {'type': 'integer'}
_BOOL = {'type': 'boolean'}
_TIME = {'type': ['string', 'null']}
_STRINGS = {'type': 'object', 'additionalProperties': {'type': 'string'}}
# Extra specs and QoS specs may hold null: Cinder's schemas allow it (extra_specs_with_null).
_SPECS = {'type': 'object', 'additionalProperties': {'type': ['string', 'null']}}
_LINKS = {'type': 'array', 'items': {
    'type': 'object', 'required': ['rel', 'href'],
    'properties': {'rel': _STR, 'href': _STR, 'type': _STR}}}


def _object(required: dict, optional: dict | None = None) -> dict:
    return {'type': 'object', 'required': sorted(required),
            'properties': {**required, **(optional or {})}}


def _envelope(key: str, inner: dict, **optional) -> dict:
    """`{key: inner}` plus optional siblings (`<key>_links`, `count`)."""
    return _object({key: inner}, optional)


def _listing(key: str, item: dict, *, links: str | None = None, count: bool = False) -> dict:
    optional = {links or f'{key}_links': _LINKS}
    if count:
        optional['count'] = _INT
    return _envelope(key, {'type': 'array', 'items': item}, **optional)


fault = {
    'description': "Cinder's fault body: one key (badRequest, itemNotFound, ...) holding the "
                   'message and the HTTP code.',
    'type': 'object', 'minProperties': 1, 'maxProperties': 1,
    'additionalProperties': _object({'message': _STR, 'code': _INT}),
}

# --- versions and extensions --------------------------------------------------------
_version = _object({'id': _STR, 'status': _STR, 'version': _STR, 'min_version': _STR,
                    'updated': _STR, 'links': _LINKS,
                    'media-types': {'type': 'array', 'items': _object(
                        {'base': _STR, 'type': _STR})}})
versions = _listing('versions', _version)
_extension = _object({'name': _STR, 'alias': _STR, 'description': _STR, 'updated': _STR,
                      'links': {'type': 'array'}})
extensions = _listing('extensions', _extension)
extension = _envelope('extension', _extension)
openapi = {'type': 'object', 'required': ['openapi', 'info', 'paths']}

# --- services, clusters, zones, pools, capabilities, workers -----------------------------
_service = _object({'binary': _STR, 'host': _STR, 'zone': _TEXT, 'status': _STR,
                    'state': _STR, 'updated_at': _TIME},
                   {'cluster': _TEXT, 'disabled_reason': _TEXT, 'replication_status': _TEXT,
                    'active_backend_id': _TEXT, 'frozen': _BOOL})
services = _listing('services', _service)
log_levels = _object({'log_levels': {'type': 'array', 'items': _object(
    {'binary': _STR, 'host': _STR, 'levels': _STRINGS})}})
service_update = _object({'host': _STR, 'service': _STR, 'binary': _STR, 'status': _STR,
                          'disabled': _BOOL}, {'disabled_reason': _TEXT})
_cluster = _object({'name': _STR, 'binary': _STR, 'state': _STR, 'status': _STR},
                   {'num_hosts': _INT, 'num_down_hosts': _INT, 'last_heartbeat': _TEXT,
                    'created_at': _TEXT, 'updated_at': _TEXT, 'disabled_reason': _TEXT,
                    'replication_status': _TEXT, 'frozen': _BOOL,
                    'active_backend_id': _TEXT})
clusters = _listing('clusters', _cluster)
cluster = _envelope('cluster', _cluster)
availability_zones = _envelope('availabilityZoneInfo', {'type': 'array', 'items': _object(
    {'zoneName': _STR, 'zoneState': _object({'available': _BOOL})})})
pools = _listing('pools', _object({'name': _TEXT}, {'capabilities': {
    'type': ['object', 'null']}}))
capabilities = _object({'namespace': _STR}, {'replication_targets': {'type': 'array'}})
_worker = {'type': 'object', 'properties': {'id': _INT, 'host': _TEXT, 'binary': _TEXT,
                                            'cluster_name': _TEXT}}
workers_cleanup = _object({'cleaning': {'type': 'array', 'items': _worker},
                           'unavailable': {'type': 'array', 'items': _worker}})

hosts = _envelope('hosts', {'type': 'array', 'items': _object(
    {'host_name': _STR, 'service': _TEXT, 'zone': _TEXT, 'service-status': _STR,
     'service-state': _STR, 'last-update': _TIME})})
host = _envelope('host', {'type': 'array', 'items': _envelope('resource', _object(
    {'host': _STR, 'project': _STR, 'volume_count': _STR, 'total_volume_gb': _STR,
     'snapshot_count': _STR, 'total_snapshot_gb': _STR}))})

# --- volume types, extra specs, access, default types, QoS specs ----------------------------
_type = _object({'id': _STR, 'name': _TEXT, 'is_public': _BOOL, 'description': _TEXT},
                {'extra_specs': _SPECS, 'qos_specs_id': _TEXT,
                 'os-volume-type-access:is_public': _BOOL})
volume_type = _envelope('volume_type', _type)
volume_types = _listing('volume_types', _type, links='volume_type_links')
extra_specs = _envelope('extra_specs', _SPECS)
extra_spec = _SPECS
_group_type = _object({'id': _STR, 'name': _STR, 'is_public': _BOOL, 'description': _TEXT},
                      {'group_specs': _SPECS})
group_type = _envelope('group_type', _group_type)
group_types = _listing('group_types', _group_type, links='group_type_links')
group_specs = _envelope('group_specs', _SPECS)
_group_summary = _object({'id': _STR, 'name': _TEXT})
_group = _object({'id': _STR, 'status': _TEXT, 'availability_zone': _TEXT, 'created_at': _TIME,
                  'name': _TEXT, 'description': _TEXT, 'group_type': _TEXT,
                  'volume_types': {'type': 'array', 'items': _STR}},
                 {'group_snapshot_id': _TEXT, 'source_group_id': _TEXT,
                  'volumes': {'type': 'array', 'items': _STR}, 'replication_status': _TEXT,
                  'project_id': _TEXT})
group = _envelope('group', _group)
group_summary = _envelope('group', _group_summary)
groups = _listing('groups', _group_summary, links='group_links')
groups_detail = _listing('groups', _group, links='group_links')
_group_snapshot = _object({'id': _STR, 'group_id': _STR, 'group_type_id': _TEXT,
                           'status': _TEXT, 'created_at': _TIME, 'name': _TEXT,
                           'description': _TEXT}, {'project_id': _TEXT})
group_snapshot = _envelope('group_snapshot', _group_snapshot)
group_snapshot_summary = _envelope('group_snapshot', _object(
    {'id': _STR, 'name': _TEXT}, {'group_type_id': _TEXT}))
group_snapshots = _listing('group_snapshots', _object({'id': _STR, 'name': _TEXT}),
                           links='group_snapshot_links')
group_snapshots_detail = _listing('group_snapshots', _group_snapshot,
                                  links='group_snapshot_links')
type_access = _envelope('volume_type_access', {'type': 'array', 'items': _object(
    {'volume_type_id': _STR, 'project_id': _STR})})
_SPEC_FIELDS = {'provider': _TEXT, 'cipher': _TEXT, 'key_size': {'type': ['integer', 'null']},
                'control_location': _TEXT}
# An unencrypted type answers `{}`, so no field is required.
type_encryption = {'type': 'object', 'properties': {
    **_SPEC_FIELDS, 'volume_type_id': _STR, 'encryption_id': _STR, 'deleted': _BOOL,
    'created_at': _TIME, 'updated_at': _TIME, 'deleted_at': _TIME}}
type_encryption_specs = _envelope('encryption', {'type': 'object', 'properties': _SPEC_FIELDS})
type_encryption_item = {'type': 'object', 'minProperties': 1, 'maxProperties': 1}
volume_encryption = _object({'encryption_key_id': _TEXT}, _SPEC_FIELDS)
volume_encryption_item = {'type': ['string', 'integer', 'null']}
_default_type = _object({'project_id': _STR, 'volume_type_id': _STR})
default_type = _envelope('default_type', _default_type)
default_types = _envelope('default_types', {'type': 'array', 'items': _default_type})
_qos = _object({'id': _STR, 'name': _STR, 'consumer': _STR, 'specs': _SPECS})
qos_specs = _envelope('qos_specs', _qos, links=_LINKS)
qos_specs_list = _listing('qos_specs', _qos)
qos_specs_keys = _envelope('qos_specs', _SPECS)
qos_associations = _envelope('qos_associations', {'type': 'array', 'items': _object(
    {'association_type': _STR, 'name': _TEXT, 'id': _STR})})

# --- volumes, their metadata and actions ---------------------------------------------------
_volume_attachment = _object({'id': _STR, 'attachment_id': _STR, 'volume_id': _STR},
                             {'server_id': _TEXT, 'host_name': _TEXT, 'device': _TEXT,
                              'attached_at': _TIME})
_volume = _object(
    {'id': _STR, 'status': _STR, 'size': _INT, 'availability_zone': _TEXT,
     'created_at': _TIME, 'updated_at': _TIME,
     'attachments': {'type': 'array', 'items': _volume_attachment}, 'name': _TEXT,
     'description': _TEXT, 'volume_type': _TEXT, 'snapshot_id': _TEXT, 'source_volid': _TEXT,
     'metadata': _STRINGS, 'links': _LINKS, 'user_id': _TEXT, 'bootable': _STR,
     'encrypted': _BOOL, 'replication_status': _TEXT, 'consistencygroup_id': _TEXT,
     'multiattach': _BOOL},
    {'group_id': _TEXT, 'provider_id': _TEXT, 'service_uuid': _TEXT,
     'shared_targets': {'type': ['boolean', 'null']}, 'cluster_name': _TEXT,
     'volume_type_id': _TEXT, 'encryption_key_id': _TEXT, 'consumes_quota': _BOOL,
     'migration_status': _TEXT, 'os-vol-tenant-attr:tenant_id': _TEXT,
     'os-vol-host-attr:host': _TEXT, 'os-vol-mig-status-attr:migstat': _TEXT,
     'os-vol-mig-status-attr:name_id': _TEXT})
volume = _envelope('volume', _volume)
volumes_detail = _listing('volumes', _volume, count=True)
volumes = _listing('volumes', _object({'id': _STR, 'name': _TEXT, 'links': _LINKS}),
                   count=True)
volume_summary = _envelope('volume-summary', _object(
    {'total_size': _INT, 'total_count': _INT},
    {'metadata': {'type': 'object', 'additionalProperties': {'type': 'array'}}}))
metadata = _envelope('metadata', _STRINGS)
meta = _envelope('meta', _STRINGS)
volume_action = {'description': 'os-initialize_connection answers connection_info; the '
                                'other actions answer no body.', 'type': 'object'}

# --- snapshots ---------------------------------------------------------------------------
_snapshot = _object(
    {'id': _STR, 'created_at': _TIME, 'updated_at': _TIME, 'name': _TEXT,
     'description': _TEXT, 'volume_id': _STR, 'status': _STR, 'size': _INT,
     'metadata': _STRINGS},
    {'group_snapshot_id': _TEXT, 'user_id': _TEXT, 'consumes_quota': _BOOL,
     'os-extended-snapshot-attributes:project_id': _TEXT,
     'os-extended-snapshot-attributes:progress': _TEXT})
snapshot = _envelope('snapshot', _snapshot)
snapshots = _listing('snapshots', _snapshot, count=True)

# --- attachments ---------------------------------------------------------------------------
_reference = {'type': ['object', 'null']}
_manageable = {'reference': _reference, 'size': _INT, 'safe_to_manage': _BOOL}
_manageable_detail = {'reason_not_safe': _TEXT, 'cinder_id': _TEXT,
                      'extra_info': {'type': ['object', 'string', 'null']}}
manageable_volumes = _envelope('manageable-volumes', {'type': 'array', 'items': _object(
    _manageable, _manageable_detail)})
manageable_snapshots = _envelope('manageable-snapshots', {'type': 'array', 'items': _object(
    dict(_manageable, source_reference=_reference), _manageable_detail)})

_attachment = _object({'id': _STR, 'status': _TEXT, 'instance': _TEXT, 'volume_id': _STR},
                      {'attached_at': _STR, 'detached_at': _STR, 'attach_mode': _TEXT,
                       'connection_info': {'type': ['object', 'null']}})
attachment = _envelope('attachment', _attachment)
attachments = _listing('attachments', _attachment)

# --- quotas, limits, messages, transfers --------------------------------------------------
_limits = {'type': 'object', 'properties': {'id': _STR}, 'additionalProperties': {
    'type': ['integer', 'object'],
    'properties': {'limit': _INT, 'in_use': _INT, 'reserved': _INT, 'allocated': _INT}}}
quota_set = _envelope('quota_set', _limits)
quota_class_set = _envelope('quota_class_set', _limits)
limits = _envelope('limits', _object({'rate': {'type': 'array'},
                                      'absolute': {'type': 'object',
                                                   'additionalProperties': _INT}}))
_message = _object({'id': _STR, 'event_id': _STR, 'user_message': _STR,
                    'message_level': _STR, 'created_at': _TIME, 'guaranteed_until': _TIME,
                    'request_id': _TEXT, 'links': _LINKS},
                   {'resource_type': _TEXT, 'resource_uuid': _TEXT})
message = _envelope('message', _message)
messages = _listing('messages', _message)
_transfer = _object({'id': _STR, 'volume_id': _STR, 'name': _TEXT, 'links': _LINKS},
                    {'created_at': _TIME, 'auth_key': _STR, 'no_snapshots': _BOOL,
                     'source_project_id': _TEXT, 'destination_project_id': _TEXT,
                     'accepted': {'type': ['boolean', 'null']}})
transfer = _envelope('transfer', _transfer)
transfers = _listing('transfers', _transfer)

# --- backups -------------------------------------------------------------------------------
_backup_summary = _object({'id': _STR, 'name': _TEXT, 'links': _LINKS})
_backup = _object(
    {'id': _STR, 'status': _STR, 'size': _INT, 'object_count': {'type': ['integer', 'null']},
     'availability_zone': _TEXT, 'container': _TEXT, 'created_at': _TIME,
     'updated_at': _TIME, 'name': _TEXT, 'description': _TEXT, 'fail_reason': _TEXT,
     'volume_id': _STR, 'links': _LINKS, 'is_incremental': _BOOL,
     'has_dependent_backups': _BOOL, 'snapshot_id': _TEXT, 'data_timestamp': _TIME},
    {'metadata': _STRINGS, 'encryption_key_id': _STR,
     'os-backup-project-attr:project_id': _TEXT, 'user_id': _TEXT})
backup_summary = _envelope('backup', _backup_summary)
backup = _envelope('backup', _backup)
backups = _listing('backups', _backup_summary, count=True)
backups_detail = _listing('backups', _backup, count=True)
backup_restore = _envelope('restore', _object({'backup_id': _STR, 'volume_id': _STR,
                                               'volume_name': _TEXT}))
backup_record = _envelope('backup-record', _object({'backup_service': _STR,
                                                    'backup_url': _STR}))
