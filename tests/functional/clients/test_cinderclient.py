"""python-cinderclient against the four daemons, as a user of `cinder` would drive them.

noauth the way cinderclient does it: its CinderNoAuthPlugin sends `user:project` as the token
and builds the endpoint as <endpoint>/<project>.
"""

import pytest
from cinderclient import client as cinder_client
from cinderclient import exceptions
from cinderclient.contrib import noauth
from keystoneauth1 import session

from tests.functional.clients.helpers import settle
from tests.functional.e2e.stack import PROJECT

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]


@pytest.fixture(scope='module')
def cinder(stack):
    auth = noauth.CinderNoAuthPlugin('admin', PROJECT,
                                     endpoint=f'http://127.0.0.1:{stack.api_port}/v3')
    return cinder_client.Client('3.71', session=session.Session(auth=auth))


def _type_on(cinder, name, backend):
    vtype = cinder.volume_types.create(name)
    vtype.set_keys({'volume_backend_name': backend})
    return vtype


def _available(cinder, volume, **expected):
    def fetch():
        return cinder.volumes.get(volume.id)
    return settle(fetch, what=f'volume {volume.id} to be available with {expected}',
                  until=lambda v: v.status == 'available' and all(
                      getattr(v, key) == value for key, value in expected.items()))


def test_volume_create_list_show_extend_delete(cinder, stack, name):
    vtype = _type_on(cinder, name, 'b1')
    volume = cinder.volumes.create(1, name=name, description='through cinderclient',
                                   volume_type=name, metadata={'k': 'v'})
    assert volume.status == 'creating'
    volume = _available(cinder, volume)
    assert (volume.name, volume.description, volume.size, volume.volume_type) == (
        name, 'through cinderclient', 1, name)
    assert volume.metadata == {'k': 'v'}
    assert getattr(volume, 'os-vol-host-attr:host') == f'{stack.host}@b1#b1'
    assert volume.id in [v.id for v in cinder.volumes.list(search_opts={'name': name})]
    assert [v.id for v in cinder.volumes.list(detailed=False, search_opts={'name': name})] == [
        volume.id]

    cinder.volumes.extend(volume, 2)
    assert _available(cinder, volume, size=2).size == 2

    cinder.volumes.delete(volume)
    settle(lambda: not any(v.id == volume.id for v in cinder.volumes.list()),
           until=bool, what=f'volume {volume.id} to be deleted')
    with pytest.raises(exceptions.NotFound):
        cinder.volumes.get(volume.id)
    cinder.volume_types.delete(vtype)


def test_refused_requests_come_back_as_cinderclient_errors(cinder):
    with pytest.raises(exceptions.BadRequest) as bad_size:
        cinder.volumes.create(0)
    assert bad_size.value.code == 400
    with pytest.raises(exceptions.NotFound):
        cinder.volumes.create(1, volume_type='no-such-type')
    with pytest.raises(exceptions.NotFound):
        cinder.volumes.get('00000000-0000-0000-0000-000000000000')


def test_types_and_extra_specs(cinder, name):
    vtype = cinder.volume_types.create(name, description='gold', is_public=True)
    vtype.set_keys({'volume_backend_name': 'b2', 'capabilities:multiattach': '<is> True'})
    assert cinder.volume_types.get(vtype.id).get_keys() == {
        'volume_backend_name': 'b2', 'capabilities:multiattach': '<is> True'}
    vtype.unset_keys(['capabilities:multiattach'])
    assert vtype.get_keys() == {'volume_backend_name': 'b2'}
    cinder.volume_types.update(vtype, description='silver')
    assert cinder.volume_types.get(vtype.id).description == 'silver'
    assert name in [t.name for t in cinder.volume_types.list()]
    assert cinder.volume_types.default().name == '__DEFAULT__'
    cinder.volume_types.delete(vtype)
    assert name not in [t.name for t in cinder.volume_types.list()]


def test_quotas_and_limits(cinder, name):
    _type_on(cinder, name, 'b2')
    volume = _available(cinder, cinder.volumes.create(1, volume_type=name))
    usage = cinder.quotas.get(PROJECT, usage=True)
    assert usage.volumes['in_use'] >= 1
    assert usage.gigabytes['limit'] == 1000
    assert cinder.quotas.defaults(PROJECT).volumes == 10

    cinder.quotas.update(PROJECT, volumes=25)
    assert cinder.quotas.get(PROJECT).volumes == 25
    absolute = {item.name: item.value for item in cinder.limits.get().absolute}
    assert absolute['maxTotalVolumes'] == 25
    assert absolute['totalVolumesUsed'] >= 1
    cinder.quotas.delete(PROJECT)
    assert cinder.quotas.get(PROJECT).volumes == 10
    cinder.volumes.delete(volume)


def test_no_valid_backend_leaves_a_user_message(cinder, name):
    _type_on(cinder, name, 'no-such-backend')
    volume = cinder.volumes.create(1, volume_type=name)
    settle(lambda: cinder.volumes.get(volume.id), until=lambda v: v.status == 'error',
           what=f'volume {volume.id} to fail scheduling')
    messages = cinder.messages.list(search_opts={'resource_uuid': volume.id})
    assert [m.event_id for m in messages] == ['VOLUME_VOLUME_001_003']
    message = cinder.messages.get(messages[0].id)
    assert message.user_message == (
        'schedule allocate volume:Could not find any available weighted backend.')
    cinder.messages.delete(message)
    assert cinder.messages.list(search_opts={'resource_uuid': volume.id}) == []
    cinder.volumes.delete(volume)


def test_pools_and_capabilities(cinder, stack):
    pools = {pool.name: pool for pool in cinder.pools.list(detailed=True)}
    assert set(pools) >= {f'{stack.host}@b1#b1', f'{stack.host}@b2#b2'}
    assert pools[f'{stack.host}@b1#b1'].storage_protocol == 'fake'
    capabilities = cinder.capabilities.get(f'{stack.host}@b2')
    assert capabilities.namespace == f'OS::Storage::Capabilities::{stack.host}@b2'
    assert capabilities.volume_backend_name == 'b2'


def test_readonly_flag_shows_in_the_volume_metadata(cinder, name):
    vtype = _type_on(cinder, name, 'b1')
    created = cinder.volumes.create(1, name=name, volume_type=name, metadata={'k': 'v'})
    # Cinder's create answer carries no extension attributes (tempest's schema forbids them).
    assert not any(key.startswith('os-vol-') for key in created.to_dict())
    volume = _available(cinder, created)
    cinder.volumes.update_readonly_flag(volume, True)
    assert cinder.volumes.get(volume.id).metadata == {'k': 'v', 'readonly': 'True'}
    [listed] = cinder.volumes.list(search_opts={'name': name})
    assert listed.metadata == {'k': 'v', 'readonly': 'True'}
    cinder.volumes.update_readonly_flag(volume, False)
    assert cinder.volumes.get(volume.id).metadata == {'k': 'v', 'readonly': 'False'}
    cinder.volumes.delete(volume)
    settle(lambda: not any(v.id == volume.id for v in cinder.volumes.list()),
           until=bool, what=f'volume {volume.id} to be deleted')
    cinder.volume_types.delete(vtype)
