"""cinderlike-api: GET /healthcheck, oslo.middleware's healthcheck at Cinder's path, with two
checks of our own: the database answers and the message broker accepts a connection.

Load balancers poll it without a token. 200 "OK" while every check passes, 503 otherwise;
with `[healthcheck] detailed` the JSON / HTML answers name each check and its reason.
"""

import sqlalchemy as sa
import stevedore
from kombu import Connection
from oslo_messaging import TransportURL
from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import pluginbase

from cinderlike import conf as cl_conf
from cinderlike.conf import healthcheck as healthcheck_conf

PATH = '/healthcheck'


class DatabaseCheck(pluginbase.HealthcheckBaseExtension):
    """`SELECT 1` through the API's own engine."""

    def __init__(self, oslo_conf, conf, *, db):
        super().__init__(oslo_conf, conf)
        self._db = db

    def healthcheck(self, server_port):
        try:
            with self._db.reader() as session:
                session.execute(sa.text('SELECT 1'))
        except sa.exc.SQLAlchemyError as error:
            return pluginbase.HealthcheckResult(
                available=False, reason='database unreachable',
                details=f'{type(error).__name__}: {error.__cause__ or error}'[:500])
        return pluginbase.HealthcheckResult(available=True, reason='database reachable',
                                            details=self._db.dialect)


class MessagingCheck(pluginbase.HealthcheckBaseExtension):
    """An AMQP connection to one of `transport_url`'s hosts (kombu, as oslo.messaging's rabbit
    driver); the in-process fake:// transport of cinderlike-all is always reachable."""

    def healthcheck(self, server_port):
        url = TransportURL.parse(self.oslo_conf, self.oslo_conf.transport_url)
        if url.transport != 'rabbit':
            return pluginbase.HealthcheckResult(
                available=True, reason=f'{url.transport} transport (in process)')
        timeout = self.oslo_conf.healthcheck.check_timeout
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
            return pluginbase.HealthcheckResult(
                available=True, reason='message broker reachable',
                details=f'{host.hostname}:{host.port or 5672}')
        return pluginbase.HealthcheckResult(available=False, reason='message broker unreachable',
                                            details='; '.join(failures)[:500])


class Healthcheck(healthcheck.Healthcheck):
    """oslo.middleware's healthcheck app: the `[healthcheck] backends` plugins (such as
    Cinder's `disable_by_file`), then the database and broker checks."""

    def __init__(self, conf, *, db):
        super().__init__(None, conf)
        # NOTE(plugins): oslo.middleware loads its plugins by entry point; ours need the
        # API's database, so they are added as extensions built here.
        ours = [('database', DatabaseCheck(conf, {}, db=db)),
                ('messaging', MessagingCheck(conf, {}))]
        self._backends = [*self._backends,
                          *(stevedore.extension.Extension(name, None, type(check), check)
                            for name, check in ours)]


def serving(conf, *, db):
    """A WSGI filter: /healthcheck to the healthcheck app, everything else inward."""
    cl_conf.register_on_demand(conf, healthcheck_conf)
    check = Healthcheck(conf, db=db)

    def wrap(app):
        def dispatch(env, start_response):
            target = check if env.get('PATH_INFO', '').rstrip('/') == PATH else app
            return target(env, start_response)
        return dispatch
    return wrap
