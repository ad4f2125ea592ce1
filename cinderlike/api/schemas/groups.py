"""cinderlike-api: request bodies of generic volume groups (3.13) and their actions.

Cinder's schemas (cinder/api/schemas/groups.py): a group needs a group type and at least
one distinct volume type; names may be empty.
"""

from cinderlike.api.schemas import types
from cinderlike.states import groups as states

_zone = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255}

# POST /groups
create = types._wrapped('group', {
    'description': types.description,
    'group_type': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'name': types.name_allow_zero_min_length,
    'volume_types': {'type': 'array', 'minItems': 1, 'uniqueItems': True,
                     'items': {'type': 'string', 'maxLength': 255}},
    'availability_zone': _zone}, required=['group_type', 'volume_types'])

# POST /groups/action {"create-from-src": {...}} (3.14): exactly one source
_uuid = {'type': 'string', 'format': 'uuid'}
create_from_source = types._wrapped('create-from-src', {
    'description': types.description, 'name': types.name_allow_zero_min_length,
    'source_group_id': _uuid, 'group_snapshot_id': _uuid})
create_from_source['properties']['create-from-src']['oneOf'] = [
    {'required': ['group_snapshot_id']}, {'required': ['source_group_id']}]

# PUT /groups/{id}: at least one of the four (comma-separated volume ids for the lists)
update = types._wrapped('group', {
    'description': types.description, 'name': types.name_allow_zero_min_length,
    'add_volumes': types.description, 'remove_volumes': types.description})
update['properties']['group']['anyOf'] = [{'required': [key]} for key in (
    'name', 'description', 'add_volumes', 'remove_volumes')]

# POST /groups/{id}/action {"delete": {"delete-volumes": bool}}
delete = types._wrapped('delete', {'delete-volumes': types.boolean})

# POST /groups/{id}/action {"reset_status": {"status": ...}} (3.20)
reset_status = types._wrapped('reset_status', {
    'status': {'type': 'string', 'format': 'group_status'}}, required=['status'])

# Format checkers of the action bodies (api/validation.py `formats=`): Cinder's
# _validate_group_status takes any case.
FORMATS = {'group_status': lambda value: value.lower() in states.ALL}

# POST /groups/{id}/action: the replication actions (3.38)
failover_replication = types._wrapped('failover_replication', {
    'allow_attached_volume': types.boolean,
    'secondary_backend_id': {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}})
enable_replication = {'type': 'object', 'required': ['enable_replication'],
                      'properties': {'enable_replication': {'type': 'object'}},
                      'additionalProperties': False}
disable_replication = {'type': 'object', 'required': ['disable_replication'],
                       'properties': {'disable_replication': {'type': 'object'}},
                       'additionalProperties': False}
list_replication = {'type': 'object', 'required': ['list_replication_targets'],
                    'properties': {'list_replication_targets': {'type': 'object'}},
                    'additionalProperties': False}
