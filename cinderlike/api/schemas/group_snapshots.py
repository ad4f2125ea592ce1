"""cinderlike-api: request bodies of group snapshots (3.14) and their reset_status (3.19)."""

from cinderlike.api.schemas import types
from cinderlike.states import group_snapshots as states

# POST /group_snapshots
create = types._wrapped('group_snapshot', {
    'group_id': {'type': 'string', 'format': 'uuid'},
    'name': types.name_allow_zero_min_length, 'description': types.description},
    required=['group_id'])

# POST /group_snapshots/{id}/action {"reset_status": {"status": ...}}
reset_status = types._wrapped('reset_status', {
    'status': {'type': 'string', 'format': 'group_snapshot_status'}}, required=['status'])

# Format checkers (api/validation.py `formats=`): Cinder's check takes any case.
FORMATS = {'group_snapshot_status': lambda value: value.lower() in states.ALL}
