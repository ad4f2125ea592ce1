"""create / extend / delete cast through volume/rpcapi.py to a running volume service on the
fake transport and SQLite: the RPC names and arguments of both sides agree."""

import pytest

from cinderlike import quota, service
from cinderlike.db import volumes as db_volumes
from cinderlike.volume import manager as volume_manager
from cinderlike.volume import rpcapi
from tests.fixtures import daemons
from tests.unit.volume.conftest import (
    HOST,
    PROJECT,
    add_volume,
    claimed,
    ctx,
    grow_claim,
    row,
    usage,
)


@pytest.fixture
def running(conf, db):
    conf.set_override('report_interval', 3600)
    conf.set_override('periodic_interval', 3600)
    svc = service.Service(conf, host=HOST, manager_cls=volume_manager.VolumeManager,
                          manager_kwargs={'backend': 'lvm'}, db=db, coordination=True,
                          shared_transport=True)
    svc.start()
    yield rpcapi.VolumeAPI(conf)
    svc.stop()


def test_create_extend_delete_over_rpc(running, db):
    api = running
    volume = add_volume(db, size=1)
    api.create_volume(ctx(), volume_id=volume.id, host=volume.host,
                      request_spec={'volume_id': volume.id}, filter_properties={})
    daemons.wait_for(lambda: row(db, volume.id).status == 'available')

    db_volumes.MACHINE.begin(db, row_id=volume.id, action='extend')
    reservations = quota.reserve(db, ctx(), conf=daemons.make_conf(), project_id=PROJECT,
                                 deltas={'gigabytes': 1})
    grow_claim(db, 1)  # the scheduler claims the extra gigabyte before it casts
    api.extend_volume(ctx(), volume_id=volume.id, host=volume.host, new_size=2,
                      reservations=reservations)
    daemons.wait_for(lambda: row(db, volume.id).status == 'available')
    assert row(db, volume.id).size == 2 and usage(db, 'gigabytes') == (2, 0)

    db_volumes.MACHINE.begin(db, row_id=volume.id, action='delete')
    api.delete_volume(ctx(), volume_id=volume.id, host=volume.host)
    daemons.wait_for(lambda: row(db, volume.id).deleted)
    assert usage(db, 'volumes') == (0, 0) and claimed(db) == 0
