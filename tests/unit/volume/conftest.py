"""A volume manager on the fake driver, SQLite and a file:// tooz backend, with the scheduler
replaced by a recorder: the volume service's work tested without other daemons."""

import os

import pytest
import sqlalchemy as sa
from oslo_messaging.notify import _impl_test

from cinderlike import context, coordination, quota
from cinderlike.conf import volume as volume_conf
from cinderlike.db import engine, models
from cinderlike.db import services as db_services
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Message, Pool, QuotaUsage, Worker
from cinderlike.drivers.volume import fake
from cinderlike.volume import manager as volume_manager
from tests.fixtures import daemons

HOST = 'node1@lvm'
POOL = f'{HOST}#lvm'
PROJECT = 'p1'


class RecordingScheduler:
    """Stands in for SchedulerAPI: keeps (method, kwargs) of each cast."""

    def __init__(self):
        self.casts = []

    def create_volume(self, ctxt, **kwargs):
        self.casts.append(('create_volume', kwargs))


@pytest.fixture
def conf(tmp_path):
    conf = daemons.make_conf(host='node1', state_path=str(tmp_path))
    conf.set_override('backend_url', f'file://{tmp_path}/locks', group='coordination')
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    volume_conf.register_backend(conf, 'lvm', fake.DRIVER_OPTS)
    conf.set_override('volume_driver', 'fake', group='lvm')
    _impl_test.reset()
    yield conf
    daemons.close_transports()


@pytest.fixture
def db(tmp_path):
    # NOTE(sqlite): a file, not ':memory:' (one connection shared by every thread), so a
    # test reading while an RPC server thread writes sees only committed transactions.
    db = engine.Database(f'sqlite:///{tmp_path}/cinderlike.sqlite')
    models.Base.metadata.create_all(db.engine)
    db_types.create(db, name='__DEFAULT__', description='Default Volume Type')
    db_services.register(db, host=HOST, binary='cinder-volume', topic='cinder-volume',
                         availability_zone='nova')
    with db.writer() as s:
        s.add(Pool(name=POOL, backend=HOST, allocated_capacity_gb=0))
    return db


@pytest.fixture
def manager(conf, db):
    coordinator = coordination.Coordinator(conf, member_id='test-volume')
    coordinator.start()
    mgr = volume_manager.VolumeManager(conf, host=HOST, db=db, backend='lvm',
                                       coordinator=coordinator)
    mgr.scheduler_api = RecordingScheduler()
    mgr.driver.do_setup(None)
    mgr.initialized = True
    yield mgr
    coordinator.stop()


def lock_files(conf) -> list[str]:
    """The names of the files tooz's file backend keeps for the locks taken so far."""
    return sorted(os.listdir(coordination.file_lock_dir(conf)))


def ctx():
    return context.RequestContext(user_id='u1', project_id=PROJECT)


def add_volume(db, *, status='creating', size=1, host=POOL, claim=True, **values):
    """A volume row with its quota used and (when *claim*) its pool claim, as placed."""
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    reservations = quota.reserve(db, ctx(), conf=daemons.make_conf(), project_id=PROJECT,
                                 deltas=quota.volume_deltas(size=size,
                                                            volume_type_name=vtype.name))
    quota.commit(db, ctx(), reservations)
    if claim and host:
        grow_claim(db, size)
    return db_volumes.create(db, values={
        'project_id': PROJECT, 'user_id': 'u1', 'status': status, 'size': size, 'host': host,
        'volume_type_id': vtype.id, 'attach_status': 'detached', 'availability_zone': 'nova',
        **values})


def grow_claim(db, size):
    with db.writer() as s:
        s.execute(sa.update(Pool).where(Pool.name == POOL).values(
            allocated_capacity_gb=Pool.allocated_capacity_gb + size))


def claimed(db, pool=POOL) -> float:
    with db.reader() as s:
        return s.scalar(sa.select(Pool.allocated_capacity_gb).where(Pool.name == pool))


def usage(db, resource) -> tuple[int, int]:
    with db.reader() as s:
        row = s.scalars(sa.select(QuotaUsage).where(QuotaUsage.project_id == PROJECT,
                                                    QuotaUsage.resource == resource)).one()
        return row.in_use, row.reserved


def workers(db) -> list[Worker]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Worker)))


def event_ids(db) -> list[str]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Message.event_id)))


def row(db, volume_id):
    with db.reader() as s:
        return s.get(db_volumes.Volume, volume_id)


def notified() -> list[str]:
    return [m['event_type'] for _ctx, m, _prio, _retry in _impl_test.NOTIFICATIONS]
