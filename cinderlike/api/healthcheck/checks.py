"""cinderlike-api: the two checks /healthcheck adds after the `[healthcheck] backends`: the
database answers and the message broker accepts a connection."""

import sqlalchemy as sa
from kombu import Connection
from oslo_messaging import TransportURL

from cinderlike.api.healthcheck.plugins import HealthcheckResult


class DatabaseCheck:
    """`SELECT 1` through the API's own engine."""

    def __init__(self, db):
        self._db = db

    def healthcheck(self, server_port: int) -> HealthcheckResult:
        try:
            with self._db.reader() as session:
                session.execute(sa.text('SELECT 1'))
        except sa.exc.SQLAlchemyError as error:
            return HealthcheckResult(
                available=False, reason='database unreachable',
                details=f'{type(error).__name__}: {error.__cause__ or error}'[:500])
        return HealthcheckResult(available=True, reason='database reachable',
                                 details=self._db.dialect)


class MessagingCheck:
    """An AMQP connection to one of `transport_url`'s hosts (kombu, as oslo.messaging's rabbit
    driver); the in-process fake:// transport of cinderlike-all is always reachable."""

    def __init__(self, conf):
        self._conf = conf

    def healthcheck(self, server_port: int) -> HealthcheckResult:
        url = TransportURL.parse(self._conf, self._conf.transport_url)
        if url.transport != 'rabbit':
            return HealthcheckResult(available=True,
                                     reason=f'{url.transport} transport (in process)')
        timeout = self._conf.healthcheck.check_timeout
        failures = []
        for host in url.hosts:
            connection = Connection(hostname=host.hostname, port=host.port or 5672,
                                    userid=host.username, password=host.password,
                                    virtual_host=url.virtual_host or '/',
                                    connect_timeout=timeout, transport_options={
                                        'max_retries': 0})
            try:
                connection.connect()
            except (OSError, *connection.connection_errors) as error:
                failures.append(f'{host.hostname}:{host.port}: {error}')
                continue
            finally:
                connection.release()
            return HealthcheckResult(available=True, reason='message broker reachable',
                                     details=f'{host.hostname}:{host.port or 5672}')
        return HealthcheckResult(available=False, reason='message broker unreachable',
                                 details='; '.join(failures)[:500])
