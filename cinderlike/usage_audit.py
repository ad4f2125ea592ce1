"""cinderlike-volume-usage-audit's work: the audit window and its `volume.*`, `snapshot.*`
and `backup.*` notifications.

A cron job runs it once per period; billing consumes the `*.exists` events it emits.
"""

import datetime

from oslo_log import log as logging

from cinderlike import notifications
from cinderlike.db import usage_audit as db_usage_audit

LOG = logging.getLogger(__name__)

UNITS = ('hour', 'day', 'month', 'year')
TIME_FORMAT = '%Y-%m-%d %H:%M:%S'


def _shift_month(moment: datetime.datetime, months: int) -> datetime.datetime:
    index = moment.year * 12 + moment.month - 1 + months
    return moment.replace(year=index // 12, month=index % 12 + 1)


def last_completed_period(spec: str, now: datetime.datetime):
    """(begin, end) of the last period of `volume_usage_audit_period` *spec* ended by *now*.

    Periods start at the top of their unit in UTC, moved by the offset after '@': minutes
    for hour, hours for day, the day of the month for month, the month for year.
    :raises ValueError: for an unknown unit or an offset that makes no date.
    """
    unit, _, offset_text = spec.partition('@')
    if unit not in UNITS:
        raise ValueError('Time period must be hour, day, month or year')
    offset = int(offset_text) if offset_text else 0
    if unit in ('hour', 'day'):
        if unit == 'hour':
            end = now.replace(minute=offset, second=0, microsecond=0)
            step = datetime.timedelta(hours=1)
        else:
            end = now.replace(hour=offset, minute=0, second=0, microsecond=0)
            step = datetime.timedelta(days=1)
        if end >= now:
            end -= step
        return end - step, end
    months = 1 if unit == 'month' else 12
    if unit == 'month':
        end = datetime.datetime(now.year, now.month, offset or 1)
    else:
        end = datetime.datetime(now.year, offset or 1, 1)
    if end >= now:
        end = _shift_month(end, -months)
    return _shift_month(end, -months), end


def window(spec: str, *, now: datetime.datetime, start_time=None, end_time=None):
    """The audit window: the last completed period unless `--start_time/--end_time` say.

    :raises ValueError: for a malformed time, or an end not after the start.
    """
    begin, end = last_completed_period(spec, now)
    if start_time:
        begin = datetime.datetime.strptime(start_time, TIME_FORMAT)
    if end_time:
        end = datetime.datetime.strptime(end_time, TIME_FORMAT)
    if end <= begin:
        raise ValueError(f'The end time ({end}) must be after the start time ({begin}).')
    return begin, end


def _utc_text(moment: datetime.datetime) -> str:
    return str(moment.replace(tzinfo=datetime.UTC))


def _notify_actions(notifier, ctx, kind, row, payload, *, begin, end):
    """Replay <kind>.create.* / delete.* for a row created / deleted inside the window."""
    for action, moment in (('create', row.created_at), ('delete', row.deleted_at)):
        if moment is not None and begin < moment < end:
            stamp = {'audit_period_beginning': str(moment), 'audit_period_ending': str(moment)}
            notifier.info(ctx, f'{kind}.{action}.start', dict(payload, **stamp))
            notifier.info(ctx, f'{kind}.{action}.end', dict(payload, **stamp))


def audit_volumes(db, notifier, ctx, *, begin, end, send_actions=False,
                  now=None) -> int:
    """Send `volume.exists` for each volume alive in [begin, end); returns how many."""
    now = now or datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    period = {'audit_period_beginning': _utc_text(begin), 'audit_period_ending': _utc_text(end)}
    count = 0
    for batch in db_usage_audit.iter_volumes_active_in_window(db, begin=begin, end=end):
        for active in batch:
            payload = notifications.volume_usage(active.volume, metadata=active.metadata,
                                                 attachments=active.attachments, now=now)
            LOG.debug('Sending exists notification for volume %s of project %s',
                      active.volume.id, active.volume.project_id)
            notifier.info(ctx, 'volume.exists', dict(payload, **period))
            if send_actions:
                _notify_actions(notifier, ctx, 'volume', active.volume, payload, begin=begin,
                                end=end)
            count += 1
    return count


def audit_snapshots(db, notifier, ctx, *, begin, end, send_actions=False) -> int:
    """Send `snapshot.exists` for each snapshot alive in [begin, end); returns how many."""
    period = {'audit_period_beginning': _utc_text(begin), 'audit_period_ending': _utc_text(end)}
    count = 0
    for batch in db_usage_audit.iter_snapshots_active_in_window(db, begin=begin, end=end):
        for active in batch:
            payload = notifications.snapshot_usage(active.snapshot, volume=active.volume,
                                                   metadata=active.metadata)
            notifier.info(ctx, 'snapshot.exists', dict(payload, **period))
            if send_actions:
                _notify_actions(notifier, ctx, 'snapshot', active.snapshot, payload,
                                begin=begin, end=end)
            count += 1
    return count


def audit_backups(db, notifier, ctx, *, begin, end, send_actions=False) -> int:
    """Send `backup.exists` for each backup alive in [begin, end); returns how many."""
    period = {'audit_period_beginning': _utc_text(begin), 'audit_period_ending': _utc_text(end)}
    count = 0
    for batch in db_usage_audit.iter_backups_active_in_window(db, begin=begin, end=end):
        for backup in batch:
            payload = notifications.backup_usage(backup)
            notifier.info(ctx, 'backup.exists', dict(payload, **period))
            if send_actions:
                _notify_actions(notifier, ctx, 'backup', backup, payload, begin=begin,
                                end=end)
            count += 1
    return count
