"""Every error is a Cinder fault body, built by api/faults.py."""

import re

import amqp.exceptions
import falcon
import oslo_messaging as messaging
import pytest
import sqlalchemy as sa
from falcon import testing

from cinderlike import exception
from cinderlike.api import faults
from cinderlike.api.app import create_app
from cinderlike.db.models import Base
from tests.unit.api.conftest import ADMIN


def test_unknown_route_is_item_not_found(client):
    for path in ('/v3/nothing', '/v3/p1/nothing/here', '/nothing'):
        resp = client.simulate_get(path, headers={'X-Auth-Token': 'u:p1'})
        assert resp.status_code == 404
        assert resp.json == {'itemNotFound': {'code': 404,
                                              'message': 'The resource could not be found.'}}


def test_an_unknown_method_is_not_found_as_cinder_s_mapper_answers(client, db):
    """Cinder's routes match on the method too: 404 itemNotFound, no Allow, no write."""
    for method, path in (('DELETE', '/v3/os-services'), ('PATCH', '/v3/types'),
                         ('OPTIONS', '/v3/volumes'), ('PUT', '/v3/volumes/detail')):
        resp = client.simulate_request(method, path, headers=ADMIN, json={'x': 1}
                                       if method in ('PATCH', 'PUT') else None)
        assert resp.status_code == 404, (method, path)
        assert resp.json == {'itemNotFound': {
            'code': 404, 'message': 'The resource could not be found.'}}
        assert 'Allow' not in resp.headers
    assert client.simulate_get('/v3/types', headers=ADMIN).json['volume_types'] == []


# Every method falcon knows (but its ASGI-only WEBSOCKET), then ones it does not (its 400
# 'Invalid HTTP method').
_METHODS = (*(set(falcon.COMBINED_METHODS) - {'WEBSOCKET'}), 'FOO', 'get')


def _served(resource, suffix, method: str) -> bool:
    return hasattr(resource, f'on_{method.lower()}' + (f'_{suffix}' if suffix else ''))


def test_no_route_answers_a_method_it_does_not_serve(client, db):
    """Every route of the app (the groups ones, /groups/action included) × every method it
    has no responder for: Cinder's 404, at the newest microversion and with the project in
    the path; nothing written."""
    headers = {**ADMIN, 'OpenStack-API-Version': 'volume 3.71'}
    before = _row_counts(db)
    for template, resource, suffix in client.app.routes:
        path = re.sub(r'\{[^}]+\}', 'x', template.replace('{project_id}', 'admin'))
        for method in _METHODS:
            if _served(resource, suffix, method):
                continue
            resp = client.simulate_request(method, path, headers=headers)
            assert resp.status_code == 404, (method, path, resp.text)
            assert method == 'HEAD' or resp.json == {'itemNotFound': {
                'code': 404, 'message': 'The resource could not be found.'}}, (method, path)
    assert _row_counts(db) == before


def _row_counts(db) -> dict:
    with db.reader() as session:
        return {table.name: session.execute(sa.select(sa.func.count()).select_from(table))
                .scalar_one() for table in Base.metadata.sorted_tables}


class _Boom:
    def __init__(self, error):
        self.error = error

    def on_get(self, req, resp):
        raise self.error


@pytest.fixture
def boom_client(conf, db):
    """The real app with one extra route that raises what the test gives it."""
    app = create_app(conf, db=db)
    boom = _Boom(None)
    app.add_route('/v3/boom', boom)
    return testing.TestClient(app), boom


def test_unhandled_error_is_500_without_its_message(boom_client):
    client, boom = boom_client
    boom.error = RuntimeError('password=secret')
    resp = client.simulate_get('/v3/boom', headers=ADMIN)
    assert resp.status_code == 500
    assert resp.json == {'computeFault': {'code': 500, 'message': faults.default_message(500)}}
    assert 'secret' not in resp.text


@pytest.mark.parametrize('error, code, name, message', [
    (exception.InvalidInput(reason='bad'), 400, 'badRequest', 'Invalid input received: bad'),
    (exception.ServiceNotFound(service_id=7), 404, 'itemNotFound',
     'Service 7 could not be found.'),
    (exception.Conflict(), 409, 'conflictingRequest', 'Conflict: Conflict.'),
    (exception.ServiceTooOld(), 500, 'computeFault', faults.default_message(500)),
    # MariaDB's 1406 "Data too long" (and 1264 "Out of range") is the input's fault.
    (sa.exc.DataError('INSERT ...', {}, Exception(1406, 'Data too long')), 400, 'badRequest',
     faults.DATA_ERROR),
    # A database or broker that cannot be reached: 503, never a traceback's 500.
    (sa.exc.OperationalError('SELECT 1', {}, Exception('connection refused')), 503,
     'serviceUnavailable', faults.DATABASE_DOWN),
    (sa.exc.TimeoutError('QueuePool limit reached'), 503, 'serviceUnavailable',
     faults.DATABASE_DOWN),
    (messaging.MessageDeliveryFailure('Unable to connect'), 503, 'serviceUnavailable',
     faults.BROKER_DOWN),
    (messaging.MessagingTimeout('no reply'), 503, 'serviceUnavailable', faults.BROKER_DOWN),
    (amqp.exceptions.NotAllowed('access to vhost refused'), 503, 'serviceUnavailable',
     faults.BROKER_DOWN),
    (exception.TemporarilyUnavailable('nothing was changed.'), 503, 'serviceUnavailable',
     'nothing was changed.'),
])
def test_exceptions_map_to_cinder_faults(boom_client, error, code, name, message):
    client, boom = boom_client
    boom.error = error
    resp = client.simulate_get('/v3/boom', headers=ADMIN)
    assert resp.status_code == code
    assert resp.json == {name: {'code': code, 'message': message}}
    assert resp.headers['Content-Type'] == 'application/json'


def test_over_quota_is_413_with_retry_after(boom_client):
    """Cinder's QuotaError carries Retry-After: 0, which its Fault repeats as retryAfter."""
    client, boom = boom_client
    boom.error = exception.VolumeLimitExceeded(allowed=10)
    resp = client.simulate_get('/v3/boom', headers=ADMIN)
    assert resp.status_code == 413
    assert resp.headers['Retry-After'] == '0'
    assert resp.json == {'overLimit': {
        'code': 413, 'retryAfter': '0',
        'message': "VolumeLimitExceeded: Maximum number of volumes allowed (10) exceeded for "
                   "quota 'volumes'."}}


def test_an_error_outside_falcon_is_a_compute_fault(conf, db):
    """An outer WSGI filter failing (auth_token, say) still answers Cinder's 500 body."""
    app = create_app(conf, db=db)

    def broken(inner):
        def call(env, start_response):
            raise RuntimeError('password=secret')
        return call
    app._entry = faults.guard(broken(app._entry))
    resp = testing.TestClient(app).simulate_get('/v3/types', headers=ADMIN)
    assert resp.status_code == 500
    assert resp.json == {'computeFault': {'code': 500, 'message': faults.default_message(500)}}
    assert 'secret' not in resp.text
    head = testing.TestClient(app).simulate_head('/v3/types', headers=ADMIN)
    assert (head.status_code, head.content) == (500, b'')
    assert head.headers['Content-Length'] == resp.headers['Content-Length']


def test_default_messages_are_webob_s_explanations():
    """faults keeps webob's explanations as a table of its own (the API imports no webob)."""
    import webob.exc

    differ = {code: faults.default_message(code) for code, error in webob.exc.status_map.items()
              if faults.default_message(code) != error.explanation}
    assert differ == {}
    for unknown in (418, 499, 599, 999):
        assert faults.default_message(unknown) == (
            webob.exc.HTTPInternalServerError.explanation)
