"""cinderlike-backup: export and import backup records (Cinder's backup_url: base64 of the
backup's fields as JSON, with the driver's `driver_info`), reset-status and the force-delete
capability.
"""

import base64
import datetime
import json

from oslo_log import log as logging

from cinderlike import exception
from cinderlike.backup import refs
from cinderlike.db import backups as db_backups
from cinderlike.db import settle as db_settle
from cinderlike.db.models import Backup
from cinderlike.drivers.backup import base
from cinderlike.states import backups as states

LOG = logging.getLogger(__name__)

# What an import must find in the record (Cinder's required_import_options).
REQUIRED = ('display_name', 'display_description', 'container', 'size', 'service_metadata',
            'object_count', 'id')
# Columns an import takes from the record; the rest (owner, host, status, temporary
# resources) belong to the importing deployment.
IMPORTED = ('display_name', 'display_description', 'container', 'size', 'service_metadata',
            'object_count', 'parent_id', 'num_dependent_backups', 'snapshot_id',
            'data_timestamp', 'created_at', 'volume_id', 'encryption_key_id')
_TIMES = ('created_at', 'updated_at', 'deleted_at', 'data_timestamp')


def is_ours(manager, service: str | None) -> bool:
    """Whether *service* (a class path or alias, Cinder's or ours) names this host's backup
    driver."""
    if not service:
        return False
    try:
        return base.driver_class(service) is type(manager.driver)
    except exception.BackupDriverNotFound:
        return False


def encode(backup, driver_info: dict) -> str:
    """Cinder's Backup.encode_record: every column, JSON, base64."""
    fields = {}
    for column in Backup.__table__.columns:
        value = getattr(backup, column.key)
        fields[column.key] = value.isoformat() if isinstance(value, datetime.datetime) else value
    fields['driver_info'] = driver_info
    return base64.b64encode(json.dumps(fields).encode('utf-8')).decode('utf-8')


def decode(backup_url: str) -> dict:
    fields = json.loads(base64.b64decode(backup_url.encode('utf-8')).decode('utf-8'))
    for key in _TIMES:
        if fields.get(key):
            fields[key] = datetime.datetime.fromisoformat(fields[key])
    return fields


def export_record(manager, ctx, *, backup_id: str) -> dict:
    """{backup_service, backup_url} of an available backup of this host's driver.

    :raises BackupNotFound, InvalidBackup:
    """
    backup = db_backups.get(manager.db, backup_id=backup_id)
    if backup.status != states.Status.AVAILABLE:
        raise exception.InvalidBackup(
            reason='Export backup aborted, expected backup status available but got '
                   f'{backup.status}.')
    if not is_ours(manager, backup.service):
        raise exception.InvalidBackup(
            reason='Export record aborted, the backup service currently configured '
                   f'[{manager.driver_name}] is not the backup service that was used to '
                   f'create this backup [{backup.service}].')
    try:
        manager.require_driver()
        info = manager.driver.for_context(ctx).export_record(refs.ref_of(manager.db, backup))
    except Exception as error:
        raise exception.InvalidBackup(reason=str(error)) from error
    LOG.info('Backup %s: record exported', backup_id)
    return {'backup_service': backup.service, 'backup_url': encode(backup, info)}


def _imported_values(manager, backup_id: str, backup_url: str) -> tuple[dict, dict]:
    """(the row's columns, the driver's info) from the record. :raises InvalidBackup:"""
    try:
        fields = decode(backup_url)
        info = fields.pop('driver_info', {}) or {}
    except (ValueError, TypeError) as error:
        raise exception.InvalidBackup(reason=f"Can't parse backup record: {error}") from error
    missing = sorted(set(REQUIRED) - set(fields))
    if missing:
        raise exception.InvalidBackup(
            reason='Driver successfully decoded imported backup data, but there are missing '
                   f'fields ({", ".join(missing)}).')
    if fields['id'] != backup_id:
        raise exception.InvalidBackup(
            reason=f"Trying to import backup metadata from id {fields['id']} into backup "
                   f'{backup_id}.')
    values = {key: fields.get(key) for key in IMPORTED if key in fields}
    values.update(service=manager.driver_name, availability_zone=manager.availability_zone,
                  host=manager.host, fail_reason=None)
    return values, info


def import_record(manager, ctx, *, backup_id: str, backup_service: str, backup_url: str,
                  backup_hosts: list[str]) -> bool:
    """Make a `creating` imported record available here, or forward it to the next host
    whose driver it may be; True when this host imported it."""
    if not is_ours(manager, backup_service):
        if backup_hosts:
            forward = list(backup_hosts)
            manager.backup_api.import_record(ctx, backup_id=backup_id,
                                             backup_service=backup_service,
                                             backup_url=backup_url, backup_hosts=forward[:-1],
                                             host=forward[-1])
            return False
        _import_failed(manager, backup_id, 'Import record failed, cannot find backup service '
                                           f'to perform the import. Request service '
                                           f'{backup_service}.')
        return False
    backup, hold = manager.hold(db_backups.MACHINE, row_id=backup_id,
                                status=states.Status.CREATING)
    if hold is None:
        return False
    try:
        values, info = _imported_values(manager, backup_id, backup_url)
        manager.require_driver()
        db_backups.set_values(manager.db, backup_id=backup_id, values=values,
                              expected=states.Status.CREATING)
        manager.driver.for_context(ctx).import_record(refs.ref_of(manager.db, db_backups.get(
            manager.db, backup_id=backup_id)), info)
    except Exception as error:
        LOG.exception('Backup %s: import failed', backup_id)
        db_settle.settle(manager.db, db_backups.MACHINE, row=backup, hold=hold,
                         outcome=db_settle.Outcome(action='create', error=True, values={
                             'fail_reason': str(error)[:255]}))
        return False
    db_settle.settle(manager.db, db_backups.MACHINE, row=backup, hold=hold,
                     outcome=db_settle.Outcome(action='create'))
    LOG.info('Backup %s: record imported', backup_id)
    return True


def _import_failed(manager, backup_id: str, reason: str) -> None:
    LOG.error('Backup %s: %s', backup_id, reason)
    db_backups.MACHINE.finish(manager.db, row_id=backup_id, action='create', error=True,
                              values={'fail_reason': reason[:255]})


def reset_status(manager, ctx, *, backup_id: str, status: str) -> None:
    """Admin reset-state (Cinder's manager does it): the status written whatever it was,
    with `backup.reset_status.start/end`."""
    backup = db_backups.get(manager.db, backup_id=backup_id)
    manager.notifier.info(ctx, backup, 'reset_status.start')
    db_backups.MACHINE.reset(manager.db, row_id=backup_id, values={'status': status})
    manager.notifier.info(ctx, db_backups.get(manager.db, backup_id=backup_id),
                          'reset_status.end')

