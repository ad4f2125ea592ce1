"""openstacksdk's block-storage proxy against the four daemons, as an SDK user would drive them.

NOTE(noauth): with auth_strategy=noauth Cinder answers any /v3 request without a token with
an empty 204, its version document included, and keystoneauth discovers versions without
authentication. So the `user:project` token goes on every request, discovery's too (the
session's additional header), and the endpoint override is the API root (its version list
leads to /v3/).
"""

import openstack
import pytest
from keystoneauth1 import session, token_endpoint
from openstack import exceptions

from tests.functional.clients.helpers import settle
from tests.functional.e2e.stack import PROJECT

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]


def _connect(stack, **config):
    root = f'http://127.0.0.1:{stack.api_port}/'
    token = f'admin:{PROJECT}'
    sess = session.Session(auth=token_endpoint.Token(root, token),
                           additional_headers={'X-Auth-Token': token})
    return openstack.connection.Connection(
        session=sess, block_storage_endpoint_override=root, block_storage_api_version='3',
        **config).block_storage


@pytest.fixture(scope='module')
def bs(stack):
    return _connect(stack)


def _available(bs, volume, **expected):
    return settle(lambda: bs.get_volume(volume.id),
                  what=f'volume {volume.id} to be available with {expected}',
                  until=lambda v: v.status == 'available' and all(
                      getattr(v, key) == value for key, value in expected.items()))


def test_volume_create_list_show_extend_delete(bs, stack, name):
    vtype = bs.create_type(name=name, extra_specs={'volume_backend_name': 'b2'})
    volume = bs.create_volume(size=1, name=name, volume_type=name, metadata={'k': 'v'})
    volume = _available(bs, volume)
    assert (volume.name, volume.size, volume.volume_type, volume.metadata) == (
        name, 1, name, {'k': 'v'})
    assert volume.host == f'{stack.host}@b2#b2'
    assert [v.id for v in bs.volumes(name=name)] == [volume.id]

    bs.extend_volume(volume, 3)
    assert _available(bs, volume, size=3).size == 3

    bs.delete_volume(volume)
    bs.wait_for_delete(volume, wait=60)
    with pytest.raises(exceptions.NotFoundException):
        bs.get_volume(volume.id)
    bs.delete_type(vtype)


def test_refused_requests_raise_sdk_errors(bs):
    with pytest.raises(exceptions.BadRequestException):
        bs.create_volume(size=-1)
    with pytest.raises(exceptions.NotFoundException):
        bs.create_volume(size=1, volume_type='no-such-type')


def test_types_and_extra_specs(bs, name):
    vtype = bs.create_type(name=name, description='gold', extra_specs={'a': '1'})
    bs.update_type_extra_specs(vtype, b='2')
    assert bs.get_type(vtype.id).extra_specs == {'a': '1', 'b': '2'}
    bs.delete_type_extra_specs(vtype, ['a'])
    assert bs.get_type(vtype.id).extra_specs == {'b': '2'}
    bs.update_type(vtype, description='silver')
    assert bs.get_type(vtype.id).description == 'silver'
    assert name in [t.name for t in bs.types()]
    bs.delete_type(vtype)
    assert name not in [t.name for t in bs.types()]


def test_quotas_and_limits(bs, name):
    bs.create_type(name=name, extra_specs={'volume_backend_name': 'b1'})
    volume = _available(bs, bs.create_volume(size=2, volume_type=name))
    quotas = bs.get_quota_set(PROJECT, usage=True)
    assert quotas.usage['volumes'] >= 1
    assert quotas.usage['gigabytes'] >= 2
    assert bs.get_quota_set_defaults(PROJECT).volumes == 10
    bs.update_quota_set(PROJECT, volumes=30)
    assert bs.get_quota_set(PROJECT).volumes == 30
    limits = bs.get_limits().absolute
    assert limits.max_total_volumes == 30
    assert limits.total_gigabytes_used >= 2
    bs.revert_quota_set(PROJECT)
    assert bs.get_quota_set(PROJECT).volumes == 10
    bs.delete_volume(volume)


def test_messages_of_a_volume_that_found_no_backend(stack, name):
    bs = _connect(stack, block_storage_default_microversion='3.5')
    bs.create_type(name=name, extra_specs={'volume_backend_name': 'no-such-backend'})
    volume = bs.create_volume(size=1, volume_type=name)
    settle(lambda: bs.get_volume(volume.id), until=lambda v: v.status == 'error',
           what=f'volume {volume.id} to fail scheduling')
    ours = [m for m in bs.messages() if m.resource_uuid == volume.id]
    assert [m.event_id for m in ours] == ['VOLUME_VOLUME_001_003']
    assert ours[0].user_message == (
        'schedule allocate volume:Could not find any available weighted backend.')
    # NOTE(sdk): Message.resource_key is "messages", so a fetched message keeps only its id.
    assert bs.get_message(ours[0].id).id == ours[0].id
    bs.delete_message(ours[0])
    assert not [m for m in bs.messages() if m.resource_uuid == volume.id]
    bs.delete_volume(volume)


def test_pools_and_capabilities(bs, stack):
    pools = {pool.name: pool.capabilities for pool in bs.backend_pools()}
    assert pools[f'{stack.host}@b1#b1']['volume_backend_name'] == 'b1'
    capabilities = bs.get_capabilities(f'{stack.host}@b1')
    assert capabilities.namespace == f'OS::Storage::Capabilities::{stack.host}@b1'
