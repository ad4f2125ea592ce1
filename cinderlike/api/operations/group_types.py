"""cinderlike-api: group type rules (in-use checks) and their notifications.

Each change is one db/ call; Cinder's `group_type.*` and `group_type_specs.*` events are
sent after it, and a failed type change is notified as an error.
"""

from cinderlike import exception, rpc
from cinderlike.db import group_types as db_group_types


class Notifiers:
    """Cinder's two publishers for group type events, each `<name>.<host>`."""

    def __init__(self, conf):
        self.types = rpc.get_notifier(conf, publisher_id=f'groupType.{conf.host}')
        self.specs = rpc.get_notifier(conf, publisher_id=f'groupTypeSpecs.{conf.host}')


def _error(notifiers, ctx, event, err, *, record=None, type_id=None, name=None) -> None:
    notifiers.types.error(ctx, event, {
        'group_types': record.as_payload() if record else None, 'name': name, 'id': type_id,
        'error_message': str(err)})


def create(db, notifiers, ctx, *, name, description, is_public, group_specs):
    """:raises GroupTypeExists:"""
    try:
        record = db_group_types.create(db, name=name, description=description,
                                       is_public=is_public, group_specs=group_specs)
    except exception.GroupTypeExists as err:
        _error(notifiers, ctx, 'group_type.create', err, name=name)
        raise
    notifiers.types.info(ctx, 'group_type.create', {'group_types': record.as_payload()})
    return record


def update(db, notifiers, ctx, *, type_id, name, description, is_public):
    """:raises GroupTypeNotFound, GroupTypeExists:"""
    try:
        record = db_group_types.update(db, type_id=type_id, name=name, description=description,
                                       is_public=is_public)
    except (exception.GroupTypeNotFound, exception.GroupTypeExists) as err:
        _error(notifiers, ctx, 'group_type.update', err, type_id=type_id)
        raise
    notifiers.types.info(ctx, 'group_type.update', {'group_types': record.as_payload()})
    return record


def delete(db, notifiers, ctx, *, type_id) -> None:
    """:raises GroupTypeNotFound, GroupTypeInUse: (with Cinder's 'still in use' prefix)"""
    try:
        record = db_group_types.destroy(db, type_id=type_id)
    except exception.GroupTypeInUse as err:
        _error(notifiers, ctx, 'group_type.delete', err, type_id=type_id)
        # NOTE(message): Cinder's group_types.destroy wraps the error this way before its
        # controller sees it, so its own 'Target group type is still in use.' never shows.
        raise exception.GroupTypeInUse(f'Target group type is still in use. {err}') from None
    except exception.GroupTypeNotFound as err:
        _error(notifiers, ctx, 'group_type.delete', err, type_id=type_id)
        raise
    notifiers.types.info(ctx, 'group_type.delete', {'group_types': record.as_payload()})


def set_specs(db, notifiers, ctx, *, type_id, specs: dict, key=None) -> None:
    """Create or overwrite group specs; *key* is the URL key of a PUT (an update event).

    :raises GroupTypeNotFound:
    """
    db_group_types.update_specs(db, type_id=type_id, specs=specs)
    if key is None:
        notifiers.specs.info(ctx, 'group_type_specs.create', {'type_id': type_id,
                                                               'specs': specs})
    else:
        notifiers.specs.info(ctx, 'group_type_specs.update', {'type_id': type_id, 'id': key})


def delete_spec(db, notifiers, ctx, *, type_id, key) -> None:
    """:raises GroupTypeNotFound, GroupTypeSpecsNotFound:"""
    db_group_types.get(db, type_id=type_id)
    db_group_types.delete_spec(db, type_id=type_id, key=key)
    notifiers.specs.info(ctx, 'group_type_specs.delete', {'type_id': type_id, 'id': key})
