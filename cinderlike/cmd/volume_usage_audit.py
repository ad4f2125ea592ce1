"""cinderlike-volume-usage-audit: cron job sending `volume.exists`, `snapshot.exists` and
`backup.exists` for the last audit period.

As cinder-volume-usage-audit: the period comes from `volume_usage_audit_period` unless
`--start_time/--end_time` name one; `--send_actions` also replays create/delete events.
"""

import datetime
import sys

from oslo_config import cfg
from oslo_log import log as logging

from cinderlike import conf as cl_conf
from cinderlike import context, rpc, usage_audit
from cinderlike.db import engine

LOG = logging.getLogger(__name__)

CLI_OPTS = [
    cfg.StrOpt('start_time',
               help='Start of the audit window ("YYYY-MM-DD HH:MM:SS", UTC) instead of the '
                    'start of the last completed audit period.'),
    cfg.StrOpt('end_time',
               help='End of the audit window ("YYYY-MM-DD HH:MM:SS", UTC) instead of the '
                    'end of the last completed audit period.'),
    cfg.BoolOpt('send_actions', default=False,
                help='Also send the create and delete notifications of volumes created or '
                     'deleted inside the window.'),
]


def main(argv=None) -> int:
    conf = cl_conf.new_conf()
    conf.register_cli_opts(CLI_OPTS)
    conf(sys.argv[1:] if argv is None else argv, project='cinderlike')
    logging.setup(conf, 'cinderlike')
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    try:
        begin, end = usage_audit.window(conf.volume_usage_audit_period, now=now,
                                        start_time=conf.start_time, end_time=conf.end_time)
    except ValueError as exc:
        LOG.error('%s', exc)
        print(exc, file=sys.stderr)
        # NOTE(cinder): cinder-volume-usage-audit exits with -1 (255) on a bad window.
        return 255
    LOG.info('Creating usages for %s until %s', begin, end)
    database = engine.Database.from_conf(conf)
    notifier = rpc.get_notifier(conf, publisher_id=f'volume.{conf.host}')
    snapshot_notifier = rpc.get_notifier(conf, publisher_id=f'snapshot.{conf.host}')
    backup_notifier = rpc.get_notifier(conf, publisher_id=f'backup.{conf.host}')
    ctx = context.get_admin_context()
    try:
        count = usage_audit.audit_volumes(database, notifier, ctx, begin=begin, end=end,
                                          send_actions=conf.send_actions, now=now)
        snapshots = usage_audit.audit_snapshots(database, snapshot_notifier, ctx,
                                                begin=begin, end=end,
                                                send_actions=conf.send_actions)
        backups = usage_audit.audit_backups(database, backup_notifier, ctx, begin=begin,
                                            end=end, send_actions=conf.send_actions)
    finally:
        rpc.cleanup()
        database.dispose()
    LOG.info('Volume usage audit completed: %d volumes, %d snapshots, %d backups', count,
             snapshots, backups)
    return 0


if __name__ == '__main__':
    sys.exit(main())
