"""compute/nova.py against a real HTTP server standing in for Nova (and Keystone): the
`volume-extended` events, the 2.51 microversion headers, the auth and endpoint choices of
the [nova] options, and every way Nova can fail to be told."""

import pytest
from keystoneauth1 import loading as ks_loading

from cinderlike import conf as conf_pkg
from cinderlike import context
from cinderlike.compute import nova
from tests.fixtures import fake_nova

VOLUME = '0b1f7c1e-5d43-4d26-a0a5-3f3f0b9c1a11'
SERVERS = ['6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11', '9a3e8c4b-1f2d-4e5a-8b6c-7d8e9f0a1b2c']


@pytest.fixture
def fake():
    with fake_nova.running() as fake:
        yield fake


@pytest.fixture
def conf():
    return conf_pkg.new_conf()


def _no_keystone(conf, endpoint):
    """[nova] auth_type = none, endpoint = *endpoint*: a Nova without Keystone."""
    conf.set_override('auth_type', 'none', group='nova')
    conf.register_opts(ks_loading.get_auth_plugin_conf_options('none'), group='nova')
    conf.set_override('endpoint', endpoint, group='nova')


def _ctx(**kwargs):
    kwargs.setdefault('global_request_id', 'req-4f1e6c1a-2b3d-4c5e-8f9a-0b1c2d3e4f5a')
    return context.RequestContext(user_id='u1', project_id='p1', project_name='demo',
                                  project_domain_id='default', auth_token='user-token',
                                  **kwargs)


def test_events_posted_with_microversion_2_51(fake, conf):
    _no_keystone(conf, fake.compute_url)
    assert nova.API(conf).extend_volume(_ctx(), SERVERS, VOLUME) is True
    (posted,) = fake.events_posted()
    assert posted.method == 'POST'
    assert posted.path == f'{fake_nova.COMPUTE_PATH}/os-server-external-events'
    assert posted.body == {'events': [
        {'name': 'volume-extended', 'server_uuid': server, 'tag': VOLUME} for server in SERVERS]}
    assert posted.headers['OpenStack-API-Version'] == 'compute 2.51'
    assert posted.headers['X-OpenStack-Nova-API-Version'] == '2.51'
    assert posted.headers['X-OpenStack-Request-ID'] == _ctx().global_id
    # keystoneauth1's `none` plugin sends this placeholder, never a user's token.
    assert posted.headers['X-Auth-Token'] == 'notused'


def _user_token_catalog(fake):
    return [{'type': 'identity', 'name': 'keystone', 'endpoints': [
        {'region': 'RegionTwo', 'publicURL': 'http://127.0.0.1:9/elsewhere',
         'internalURL': 'http://127.0.0.1:9/elsewhere'},
        {'region': 'RegionOne', 'publicURL': fake.identity_url,
         'internalURL': fake.identity_url}]}]


@pytest.mark.parametrize('interface', ['public', 'internal'])
def test_user_token_from_token_auth_url_and_catalog_endpoint(fake, conf, interface):
    conf.set_override('token_auth_url', fake.identity_url, group='nova')
    conf.set_override('region_name', 'RegionTwo', group='nova')
    conf.set_override('interface', interface, group='nova')
    assert nova.API(conf).extend_volume(_ctx(), SERVERS[:1], VOLUME) is True
    issued = [r for r in fake.requests if r.path == f'{fake_nova.IDENTITY_PATH}/auth/tokens']
    assert [r.body['auth']['identity'] for r in issued] == [
        {'methods': ['token'], 'token': {'id': 'user-token'}}]
    assert issued[0].body['auth']['scope'] == {
        'project': {'name': 'demo', 'domain': {'id': 'default'}}}
    (posted,) = fake.events_posted()
    assert posted.path == (f'/RegionTwo/{interface}{fake_nova.COMPUTE_PATH}'
                           '/os-server-external-events')
    assert posted.headers['X-Auth-Token'] == fake_nova.SUBJECT_TOKEN


def test_identity_endpoint_from_the_token_catalog_of_the_region(fake, conf):
    conf.set_override('region_name', 'RegionOne', group='nova')
    ctx = _ctx(service_catalog=_user_token_catalog(fake))
    assert nova.API(conf).extend_volume(ctx, SERVERS[:1], VOLUME) is True
    (posted,) = fake.events_posted()
    assert posted.path.startswith('/RegionOne/public/')
    assert posted.headers['X-Auth-Token'] == fake_nova.SUBJECT_TOKEN


def test_catalog_reaches_the_volume_service_over_rpc(fake):
    ctx = _ctx(service_catalog=_user_token_catalog(fake))
    carried = context.RequestContext.from_dict(ctx.to_dict())
    assert carried.service_catalog == ctx.service_catalog
    assert (carried.project_name, carried.auth_token) == ('demo', 'user-token')


def test_no_identity_endpoint_is_not_told(fake, conf):
    ctx = _ctx(service_catalog=[{'type': 'volumev3', 'endpoints': []}])
    assert nova.API(conf).extend_volume(ctx, SERVERS[:1], VOLUME) is False
    assert fake.requests == []


@pytest.mark.parametrize('status', [400, 403, 404, 500, 503])
def test_nova_refusing_the_request_is_not_told(fake, conf, status):
    fake.answer = lambda events: (status, {'computeFault': {'code': status, 'message': 'no'}})
    _no_keystone(conf, fake.compute_url)
    assert nova.API(conf).extend_volume(_ctx(), SERVERS, VOLUME) is False
    assert len(fake.events_posted()) == 1


def test_connection_refused_is_not_told(conf):
    _no_keystone(conf, fake_nova.refused_url())
    assert nova.API(conf).extend_volume(_ctx(), SERVERS, VOLUME) is False


def test_unknown_auth_type_is_not_told(conf):
    conf.set_override('auth_type', 'no-such-plugin', group='nova')
    assert nova.API(conf).extend_volume(_ctx(), SERVERS, VOLUME) is False


def test_an_event_nova_turned_down_is_only_logged(fake, conf):
    # NOTE(cinder): _send_events warns on a per-event code other than 200 and still
    # reports success; only a missing code or an answer without a list fails.
    def partly(events):
        return 207, {'events': [dict(events[0], code=200, status='completed'),
                                dict(events[1], code=422, status='failed')]}
    fake.answer = partly
    _no_keystone(conf, fake.compute_url)
    assert nova.API(conf).extend_volume(_ctx(), SERVERS, VOLUME) is True


@pytest.mark.parametrize('body', [{'events': [{'name': 'volume-extended'}]}, {'events': {}},
                                  ['not', 'a', 'dict']])
def test_an_answer_without_codes_is_not_told(fake, conf, body):
    fake.answer = lambda events: (200, body)
    _no_keystone(conf, fake.compute_url)
    assert nova.API(conf).extend_volume(_ctx(), SERVERS, VOLUME) is False
