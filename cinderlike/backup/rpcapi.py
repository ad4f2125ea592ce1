"""Client side of the backup RPC API, used by the API and scheduler processes.

Backup services are not clustered: each listens on `cinder-backup` with its host as server.
"""

from cinderlike import rpc

RPC_API_VERSION = '1.1'


class BackupAPI:
    """Casts to backup services.

    API version history:

        1.0 - publish_service_capabilities (fanout)
        1.1 - set_log_levels (cast), get_log_levels (call) to one backup host
    """

    RPC_API_VERSION = RPC_API_VERSION

    def __init__(self, conf):
        self.client = rpc.get_client(conf, topic=rpc.BACKUP_TOPIC, version=RPC_API_VERSION)

    def publish_service_capabilities(self, ctxt):
        """Every backup service reports its capabilities to the schedulers now."""
        cctxt = self.client.prepare(fanout=True, version='1.0')
        cctxt.cast(ctxt, 'publish_service_capabilities')

    def set_log_levels(self, ctxt, *, host, prefix, level):
        """Set *level* on the loggers under *prefix* of the backup service on *host*."""
        self.client.prepare(server=host, version='1.1').cast(
            ctxt, 'set_log_levels', prefix=prefix, level=level)

    def get_log_levels(self, ctxt, *, host, prefix) -> dict:
        """{logger: level} under *prefix* in the backup service on *host* (a call)."""
        return self.client.prepare(server=host, version='1.1').call(
            ctxt, 'get_log_levels', prefix=prefix)
