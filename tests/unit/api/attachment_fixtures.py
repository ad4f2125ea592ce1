"""Helpers of the attachment API tests: an app whose volume calls reach a real volume
manager (fake driver) on the same database, recording each call, and request helpers."""

import dataclasses

import pytest
from falcon import testing

from cinderlike import coordination
from cinderlike.api.app import create_app
from cinderlike.conf import volume as volume_conf
from cinderlike.drivers.volume import fake
from cinderlike.volume import manager as volume_manager
from tests.unit.api.type_fixtures import admin
from tests.unit.api.volume_fixtures import Recorder

CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.1993-08.org.debian:01:abc',
             'ip': '192.0.2.10', 'platform': 'x86_64', 'os_type': 'linux',
             'multipath': False, 'mountpoint': '/dev/vdb'}
INSTANCE = '6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11'
OTHER_INSTANCE = '0b9f1f9e-3f2b-4c1e-8f43-4a4b2f7c9d22'


class ManagerCalls(Recorder):
    """The volume rpcapi as a direct call into *manager*, recording (method, kwargs)."""

    def __init__(self, manager):
        super().__init__()
        self._manager = manager

    def __getattr__(self, method):
        def call(ctx, *, host=None, cluster_name=None, **kwargs):
            self.calls.append((method, dict(kwargs, host=host, cluster_name=cluster_name)))
            return getattr(self._manager, method)(ctx, **kwargs)
        return call


@dataclasses.dataclass
class ManagerRPC:
    volume: ManagerCalls
    scheduler: Recorder = dataclasses.field(default_factory=Recorder)


@pytest.fixture
def manager(conf, seeded, tmp_path):
    """A volume manager of backend `node@fake` on the fake driver and the tests' database."""
    volume_conf.register_backend(conf, 'fake', fake.DRIVER_OPTS)
    conf.set_override('volume_driver', 'fake', group='fake')
    conf.set_override('backend_url', f'file://{tmp_path}/locks', group='coordination')
    coordinator = coordination.Coordinator(conf, member_id='test-volume')
    coordinator.start()
    mgr = volume_manager.VolumeManager(conf, host='node@fake', db=seeded, backend='fake',
                                       coordinator=coordinator)
    mgr.driver.do_setup(None)
    mgr.initialized = True
    yield mgr
    coordinator.stop()


@pytest.fixture
def mrpc(manager):
    return ManagerRPC(volume=ManagerCalls(manager))


@pytest.fixture
def aclient(conf, seeded, mrpc):
    """noauth (admin) client of an app whose volume calls run the manager."""
    return testing.TestClient(create_app(conf, db=seeded, rpc=mrpc))


@pytest.fixture
def akclient(conf, seeded, mrpc):
    """keystone-headers client (non-admin callers) of the same app."""
    conf.set_override('auth_strategy', 'keystone')
    return testing.TestClient(create_app(conf, db=seeded, rpc=mrpc, use_auth_token=False))


def create(client, volume_id, *, version='3.27', headers=None, **attachment):
    return client.simulate_post('/v3/attachments', headers=headers or admin(version),
                                json={'attachment': dict(volume_uuid=volume_id,
                                                         **attachment)})


def update(client, attachment_id, connector, *, version='3.27', headers=None):
    return client.simulate_put(f'/v3/attachments/{attachment_id}',
                               headers=headers or admin(version),
                               json={'attachment': {'connector': connector}})


def complete(client, attachment_id, *, version='3.44', headers=None):
    return client.simulate_post(f'/v3/attachments/{attachment_id}/action',
                                headers=headers or admin(version), json={'os-complete': None})


def delete(client, attachment_id, *, version='3.27', headers=None):
    return client.simulate_delete(f'/v3/attachments/{attachment_id}',
                                  headers=headers or admin(version))
