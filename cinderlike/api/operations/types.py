"""cinderlike-api: volume type rules (in-use and default checks) and their notifications.

Each change is one db/ call; what Cinder notifies (volume_type.*, volume_type_extra_specs.*,
volume_type_project.access.*) is sent after it, and failures of type changes as errors.
"""

from oslo_log import log as logging

from cinderlike import exception, rpc
from cinderlike.db import default_types as db_default_types
from cinderlike.db import type_access as db_type_access
from cinderlike.db import type_extra_specs as db_type_extra_specs
from cinderlike.db import volume_types as db_types

LOG = logging.getLogger(__name__)
_IS_TRUE = '<is> True'


class Notifiers:
    """Cinder's three publishers for type events, each `<name>.<host>`."""

    def __init__(self, conf):
        self.types = rpc.get_notifier(conf, publisher_id=f'volumeType.{conf.host}')
        self.specs = rpc.get_notifier(conf, publisher_id=f'volumeTypeExtraSpecs.{conf.host}')
        self.access = rpc.get_notifier(conf, publisher_id=f'volume_type_project.{conf.host}')


def _type_error(notifiers, ctx, event, err, *, record=None, type_id=None, name=None):
    payload = {'volume_types': record.as_payload() if record else None, 'name': name,
               'id': type_id, 'error_message': str(err)}
    notifiers.types.error(ctx, event, payload)


def create(db, notifiers, ctx, *, name, description, is_public, extra_specs):
    """:raises VolumeTypeExists:"""
    try:
        record = db_types.create(db, name=name, description=description, is_public=is_public,
                                 extra_specs=extra_specs)
    except exception.VolumeTypeExists as err:
        _type_error(notifiers, ctx, 'volume_type.create', err, name=name)
        raise
    notifiers.types.info(ctx, 'volume_type.create', {'volume_types': record.as_payload()})
    return record


def update(db, notifiers, ctx, *, type_id, name, description, is_public):
    """:raises VolumeTypeNotFound, VolumeTypeExists:"""
    try:
        record = db_types.update(db, type_id=type_id, name=name, description=description,
                                 is_public=is_public)
    except (exception.VolumeTypeNotFound, exception.VolumeTypeExists) as err:
        _type_error(notifiers, ctx, 'volume_type.update', err, type_id=type_id)
        raise
    notifiers.types.info(ctx, 'volume_type.update', {'volume_types': record.as_payload()})
    return record


def delete(db, notifiers, ctx, *, type_id, conf_default_name) -> None:
    """Delete unless volumes or a default (configured or per project) still need the type.

    :raises VolumeTypeNotFound, VolumeTypeInUse, VolumeTypeDefaultDeletionError,
        VolumeTypeDefaultMisconfiguredError:
    """
    try:
        record = db_types.destroy(db, type_id=type_id, conf_default_name=conf_default_name)
    except exception.VolumeTypeInUse as err:
        _type_error(notifiers, ctx, 'volume_type.delete', err, type_id=type_id)
        raise exception.VolumeTypeInUse('Target volume type is still in use.') from None
    except (exception.VolumeTypeNotFound, exception.VolumeTypeDefaultDeletionError,
            exception.VolumeTypeDefaultMisconfiguredError) as err:
        _type_error(notifiers, ctx, 'volume_type.delete', err, type_id=type_id)
        raise
    notifiers.types.info(ctx, 'volume_type.delete', {'volume_types': record.as_payload()})


def _check_specs_change(db, *, type_id, specs: dict) -> db_types.VolumeTypeRecord:
    """Cinder's order: specs of a type in use are frozen, then the type must exist."""
    if db_types.has_volumes(db, type_id=type_id):
        raise exception.Invalid('Volume Type is currently in use.')
    record = db_types.get(db, type_id=type_id)
    current = record.extra_specs
    merged = {key: current.get(key) for key in ('multiattach', 'cacheable')}
    merged.update({key: specs[key] for key in ('multiattach', 'cacheable') if key in specs})
    if merged['multiattach'] == _IS_TRUE and merged['cacheable'] == _IS_TRUE:
        raise exception.Invalid('cacheable cannot be set with multiattach.')
    return record


def set_extra_specs(db, notifiers, ctx, *, type_id, specs: dict, key=None) -> None:
    """Create or overwrite extra specs; *key* is the URL key of a PUT (an update event).

    :raises Invalid: type in use, or multiattach with cacheable; VolumeTypeNotFound:
    """
    _check_specs_change(db, type_id=type_id, specs=specs)
    db_type_extra_specs.update(db, type_id=type_id, specs=specs)
    record = db_types.get(db, type_id=type_id)
    stamps = {'created_at': _iso(record.created_at), 'updated_at': _iso(record.updated_at)}
    if key is None:
        notifiers.specs.info(ctx, 'volume_type_extra_specs.create',
                             dict(type_id=type_id, specs=specs, **stamps))
    else:
        notifiers.specs.info(ctx, 'volume_type_extra_specs.update',
                             dict(type_id=type_id, id=key, **stamps))


def delete_extra_spec(db, notifiers, ctx, *, type_id, key) -> None:
    """:raises VolumeTypeNotFound, Invalid: (type in use), VolumeTypeExtraSpecsNotFound:"""
    record = db_types.get(db, type_id=type_id)
    if db_types.has_volumes(db, type_id=type_id):
        raise exception.Invalid('Volume Type is currently in use.')
    db_type_extra_specs.delete(db, type_id=type_id, key=key)
    notifiers.specs.info(ctx, 'volume_type_extra_specs.delete',
                         {'type_id': type_id, 'id': key, 'created_at': _iso(record.created_at),
                          'updated_at': _iso(record.updated_at), 'deleted_at': None})


def change_access(db, notifiers, ctx, *, type_id, project_id, add: bool) -> None:
    """Grant or revoke a project's access to a private type.

    :raises VolumeTypeNotFound, InvalidVolumeType, VolumeTypeAccessExists,
        VolumeTypeAccessNotFound:
    """
    if add:
        db_type_access.add(db, type_id=type_id, project_id=project_id)
    else:
        db_type_access.remove(db, type_id=type_id, project_id=project_id)
    event = 'volume_type_project.access.' + ('add' if add else 'remove')
    notifiers.access.info(ctx, event, {'volume_type_id': type_id, 'project_id': project_id})


def set_project_default(db, *, project_id, volume_type):
    """Make the type named or identified by *volume_type* the project's default.

    :raises Invalid: with the not-found text when no such type exists (Cinder's 400).
    """
    try:
        record = db_types.get_by_name_or_id(db, ctx_project_id=None, is_admin=True,
                                            name_or_id=volume_type)
        return db_default_types.set_default(db, project_id=project_id, type_id=record.id)
    except exception.VolumeTypeNotFound as err:
        raise exception.Invalid(err.msg) from None


def _iso(value):
    return value.isoformat() if value is not None else None
