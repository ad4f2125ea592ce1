"""[DEFAULT] options of cinderlike-backup."""

from oslo_config import cfg

OPTS = [
    # The backup service's own options (backupsvc); driver options follow.
    cfg.BoolOpt('backup_use_same_host', default=False,
                help='Back up a volume on the backup service of its volume host when that '
                     'one is up, instead of any backup service of its availability zone.'),
    cfg.IntOpt('backup_driver_init_check_interval', default=60, min=1,
               help='Seconds between attempts to initialise the backup driver while it '
                    'fails its check; the service reports down until it passes.'),
    cfg.IntOpt('backup_driver_stats_polling_interval', default=60, min=10,
               help='Seconds between the backup service\'s capability reports to the '
                    'schedulers.'),
    # NOTE(backup options): names and defaults are Cinder's, so a cinder.conf carries over.
    cfg.StrOpt('backup_driver', default='cinderlike.drivers.backup.swift.SwiftBackupDriver',
               help='Backup driver: a class path (cinderlike\'s, or Cinder\'s '
                    'cinder.backup.drivers.posix.PosixBackupDriver and '
                    'cinder.backup.drivers.swift.SwiftBackupDriver) or `posix`/`swift`.'),
    cfg.StrOpt('backup_compression_algorithm', default='zlib', ignore_case=True,
               choices=[('none', 'Do not compress'),
                        ('off', "Same as 'none'"),
                        ('no', "Same as 'none'"),
                        ('zlib', 'Deflate'),
                        ('gzip', "Same as 'zlib'"),
                        ('bz2', 'Burrows-Wheeler transform'),
                        ('bzip2', "Same as 'bz2'"),
                        ('zstd', 'Zstandard')],
               help='Compression of backup objects; an object that does not shrink is stored '
                    'uncompressed.'),
    cfg.BoolOpt('backup_create_containers', default=True,
                help='Create a missing container (posix directory, Swift container); when '
                     'False the operator must create it.'),
    cfg.IntOpt('backup_file_size', default=61035 * 32768, min=1,
               help='Size in bytes of the objects a posix backup is cut into; a multiple of '
                    'backup_sha_block_size_bytes. Objects are streamed, so this does not '
                    'bound memory.'),
    cfg.IntOpt('backup_sha_block_size_bytes', default=32768, min=1,
               help='Size in bytes of the blocks whose sha256 an incremental backup '
                    'compares with its parent\'s.'),
    cfg.BoolOpt('backup_enable_progress_timer', default=True,
                help='Send backup.createprogress notifications every backup_timer_interval '
                     'seconds while a backup runs.'),
    cfg.IntOpt('backup_timer_interval', default=120, min=1,
               help='Seconds between two backup.createprogress notifications.'),
    cfg.IntOpt('backup_object_number_per_notification', default=10, min=1,
               help='Objects stored between two backup.createprogress notifications.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
