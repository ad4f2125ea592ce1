"""Client side of the backup RPC API, used by the API, scheduler and volume processes.

Backup services are not clustered: each listens on `cinder-backup` with its host as server,
and the caller picks the host (`choose_host`, Cinder's _get_available_backup_service_host).
"""

import random

from cinderlike import exception, rpc
from cinderlike.db import services as db_services

RPC_API_VERSION = '1.3'


def live_hosts(conf, db, *, availability_zone: str | None = None) -> list[str]:
    """Hosts of the enabled, up backup services (in *availability_zone* when given)."""
    return [s.host for s in db_services.get_all(db, binary=db_services.BACKUP_BINARY,
                                               disabled=False)
            if (not availability_zone or s.availability_zone == availability_zone)
            and db_services.is_up(s, down_time=conf.service_down_time)]


def choose_host(conf, db, *, host: str | None, availability_zone: str | None) -> str:
    """Where a backup operation runs: *host* when `backup_use_same_host` and it is up,
    else any live backup service of the availability zone.

    :raises ServiceNotFound: no backup service can take it.
    """
    hosts = live_hosts(conf, db, availability_zone=availability_zone)
    if host and conf.backup_use_same_host:
        chosen = host if host in hosts else None
    else:
        chosen = random.choice(hosts) if hosts else None  # noqa: S311 - spreading load only
    if chosen is None:
        raise exception.ServiceNotFound(service_id=db_services.BACKUP_BINARY)
    return chosen


class BackupAPI:
    """Casts and calls to backup services.

    API version history:

        1.0 - publish_service_capabilities (fanout)
        1.1 - create_backup, restore_backup (volume_is_new), delete_backup, reset_status,
              import_record (the remaining backup_hosts to forward to), export_record
              (call), check_support_to_force_delete (call)
        1.2 - do_cleanup (POST /workers/cleanup: settle the selected workers rows, of this
              service or of a down one)
        1.3 - set_log_levels (cast), get_log_levels (call) to one backup host
    """

    RPC_API_VERSION = RPC_API_VERSION

    def __init__(self, conf, *, retry=None):
        self.client = rpc.get_client(conf, topic=rpc.BACKUP_TOPIC, version=RPC_API_VERSION,
                                     retry=retry)

    def _to(self, host: str):
        return self.client.prepare(server=host, version='1.1')

    def publish_service_capabilities(self, ctxt):
        """Every backup service reports its capabilities to the schedulers now."""
        cctxt = self.client.prepare(fanout=True, version='1.0')
        cctxt.cast(ctxt, 'publish_service_capabilities')

    def create_backup(self, ctxt, *, backup_id: str, host: str):
        """Back up a `creating` backup's volume (or snapshot) on *host*."""
        self._to(host).cast(ctxt, 'create_backup', backup_id=backup_id)

    def restore_backup(self, ctxt, *, backup_id: str, volume_id: str, volume_is_new: bool,
                       host: str):
        """Write a `restoring` backup into its `restoring-backup` volume."""
        self._to(host).cast(ctxt, 'restore_backup', backup_id=backup_id, volume_id=volume_id,
                            volume_is_new=volume_is_new)

    def delete_backup(self, ctxt, *, backup_id: str, host: str):
        """Remove a `deleting` backup's objects and its row."""
        self._to(host).cast(ctxt, 'delete_backup', backup_id=backup_id)

    def reset_status(self, ctxt, *, backup_id: str, status: str, host: str):
        """Admin reset-state, done by the backup service (Cinder's)."""
        self._to(host).cast(ctxt, 'reset_status', backup_id=backup_id, status=status)

    def export_record(self, ctxt, *, backup_id: str, host: str) -> dict:
        """{backup_service, backup_url} of an available backup (a call)."""
        return self._to(host).call(ctxt, 'export_record', backup_id=backup_id)

    def import_record(self, ctxt, *, backup_id: str, backup_service: str, backup_url: str,
                      backup_hosts: list[str], host: str):
        """Import a `creating` record on *host*, which forwards it to the next of
        *backup_hosts* when its driver is not *backup_service*."""
        self._to(host).cast(ctxt, 'import_record', backup_id=backup_id,
                            backup_service=backup_service, backup_url=backup_url,
                            backup_hosts=backup_hosts)

    def check_support_to_force_delete(self, ctxt, *, host: str) -> bool:
        """Whether *host*'s driver can delete a backup in any status (a call)."""
        return self._to(host).call(ctxt, 'check_support_to_force_delete')

    def do_cleanup(self, ctxt, *, cleanup_request: dict, host: str):
        """Settle the backups rows a workers cleanup selected (this host's or a down
        backup service's)."""
        self.client.prepare(server=host, version='1.2').cast(
            ctxt, 'do_cleanup', cleanup_request=cleanup_request)

    def set_log_levels(self, ctxt, *, host, prefix, level):
        """Set *level* on the loggers under *prefix* of the backup service on *host*."""
        self.client.prepare(server=host, version='1.3').cast(
            ctxt, 'set_log_levels', prefix=prefix, level=level)

    def get_log_levels(self, ctxt, *, host, prefix) -> dict:
        """{logger: level} under *prefix* in the backup service on *host* (a call)."""
        return self.client.prepare(server=host, version='1.3').call(
            ctxt, 'get_log_levels', prefix=prefix)
