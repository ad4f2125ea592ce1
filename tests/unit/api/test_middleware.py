"""Pipeline behaviour shared by every v3 route: versions, identity, request id, size limit."""

import re

import pytest
from falcon import testing

from cinderlike import exception
from cinderlike.api import middleware
from cinderlike.api.app import create_app
from cinderlike.api.microversions import APIVersion
from tests.unit.api.conftest import ADMIN
from tests.unit.api.pool_fixtures import AnsweringRPC

SERVICES = '/v3/os-services'


@pytest.fixture
def client(conf, db):
    """The app with schedulers that answer get_pools (os-services asks them from 3.49)."""
    return testing.TestClient(create_app(conf, db=db, rpc=AnsweringRPC()))


def _get(client, version=None, **headers):
    if version is not None:
        headers['OpenStack-API-Version'] = version
    return client.simulate_get(SERVICES, headers={**ADMIN, **headers})


# --- microversion negotiation -------------------------------------------------

@pytest.mark.parametrize('header, expected', [
    (None, 'volume 3.0'),
    ('volume latest', 'volume 3.71'),
    ('volume 3.7', 'volume 3.7'),
    ('compute 2.1, volume 3.10', 'volume 3.10'),
    ('compute 2.1, volume 3.10, volume 3.2', 'volume 3.10'),
])
def test_negotiated_version_is_echoed(client, header, expected):
    resp = _get(client, header)
    assert resp.status_code == 200
    assert resp.headers['OpenStack-API-Version'] == expected
    assert resp.headers['Vary'] == 'OpenStack-API-Version'


def test_version_out_of_range_is_406(client):
    resp = _get(client, 'volume 3.72')
    assert resp.status_code == 406
    assert resp.json == {'computeFault': {
        'code': 406,
        'message': 'Version 3.72 is not supported by the API. '
                   'Minimum is 3.0 and maximum is 3.71.'}}
    assert resp.headers['OpenStack-API-Version'] == 'volume 3.72'
    assert resp.headers['Vary'] == 'OpenStack-API-Version'


def test_version_below_minimum_is_406(client):
    assert _get(client, 'volume 2.9').status_code == 406


@pytest.mark.parametrize('header', ['volume 3.x', 'volume 3', 'volume 3.07', 'volume'])
def test_malformed_version_is_400(client, header):
    resp = _get(client, header)
    assert resp.status_code == 400
    assert resp.json['badRequest']['message'].endswith(
        'is of invalid format. Must be of format MajorNum.MinorNum.')


@pytest.mark.parametrize('header', ['compute 2.1', 'VOLUME 3.5', 'Volume 3.71'])
def test_header_without_a_volume_entry_is_400(client, header):
    # Cinder looks for `volume` in lower case; without it, its plain 400.
    resp = _get(client, header)
    assert resp.json == {'badRequest': {'code': 400, 'message': (
        'The server could not comply with the request since it is either malformed or '
        'otherwise incorrect.')}}


def test_fault_echoes_the_version(client):
    resp = client.simulate_get('/v3/nothing-here',
                               headers={**ADMIN, 'OpenStack-API-Version': 'volume 3.7'})
    assert resp.status_code == 404
    assert resp.headers['OpenStack-API-Version'] == 'volume 3.7'


def test_parse_version_header_orders_numerically():
    assert middleware.parse_version_header('volume 3.10') > APIVersion(3, 9)
    with pytest.raises(exception.InvalidAPIVersionString):
        middleware.parse_version_header('volume 3.1.1')


# --- request id and body size ---------------------------------------------------

def test_every_response_has_a_request_id(client):
    for resp in (client.simulate_get('/'), _get(client), client.simulate_get('/v3/x/y'),
                 client.simulate_get(SERVICES)):
        assert re.fullmatch(r'req-[0-9a-f-]{36}', resp.headers['x-openstack-request-id'])


def test_request_ids_differ(client):
    first, second = _get(client), _get(client)
    assert first.headers['x-openstack-request-id'] != second.headers['x-openstack-request-id']


def test_body_over_the_limit_is_413(conf, db):
    conf.set_override('osapi_max_request_body_size', 64)
    client = testing.TestClient(create_app(conf, db=db))
    resp = client.simulate_put('/v3/os-services/disable', headers=ADMIN,
                               json={'host': 'h' * 100, 'binary': 'cinder-volume'})
    assert resp.status_code == 413
    assert resp.json == {'overLimit': {'code': 413, 'message': 'Request is too large.'}}
