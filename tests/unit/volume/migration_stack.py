"""A scheduler and two file backends (real qemu-img, local connections) on the fake
transport and SQLite, for retype and migration tests that move real bytes."""

import dataclasses
import hashlib
import os

import sqlalchemy as sa

from cinderlike import service
from cinderlike.conf import volume as volume_conf
from cinderlike.db import pools as db_pools
from cinderlike.db import volume_types as db_types
from cinderlike.db.models import Pool
from cinderlike.drivers.volume import base, file
from cinderlike.scheduler import manager as scheduler_manager
from cinderlike.scheduler import rpcapi as scheduler_rpcapi
from cinderlike.volume import manager as volume_manager
from cinderlike.volume import rpcapi as volume_rpcapi
from tests.fixtures import daemons
from tests.unit.volume.conftest import add_volume, ctx, row

BACKENDS = ('b1', 'b2')
MiB = 1024 * 1024


def host_of(backend: str) -> str:
    return f'node1@{backend}'


def pool_of(backend: str) -> str:
    return f'{host_of(backend)}#{backend}'


@dataclasses.dataclass
class RPC:
    """What the API holds: the scheduler and volume clients."""

    scheduler: object
    volume: object


@dataclasses.dataclass
class Stack:
    conf: object
    db: object
    rpc: RPC
    services: dict

    def manager(self, backend: str):
        return self.services[backend].manager

    def path(self, volume_id: str) -> str:
        """The file holding a volume's data, on whichever backend holds the row."""
        volume = row(self.db, volume_id)
        backend = volume.host.partition('@')[2].partition('#')[0]
        return self.manager(backend).driver.path(base.VolumeRef.of(volume))


def run_stack(conf, db, tmp_path):
    """Start the stack, yield it, stop it (the body of a test module's `stack` fixture)."""
    conf.set_override('report_interval', 3600)
    conf.set_override('periodic_interval', 3600)
    conf.set_override('scheduler_driver_init_wait_time', 1)
    for backend in BACKENDS:
        volume_conf.register_backend(conf, backend, file.DRIVER_OPTS)
        conf.set_override('volume_driver', 'file', group=backend)
        conf.set_override('volume_backend_name', backend, group=backend)
        conf.set_override('file_volume_directory', str(tmp_path / backend), group=backend)
    svcs = {'scheduler': service.Service(
        conf, host='s1', manager_cls=scheduler_manager.SchedulerManager, db=db,
        shared_transport=True)}
    for backend in BACKENDS:
        svcs[backend] = service.Service(
            conf, host=host_of(backend), manager_cls=volume_manager.VolumeManager,
            manager_kwargs={'backend': backend}, db=db, coordination=True,
            shared_transport=True)
    for svc in svcs.values():
        svc.start()
    daemons.wait_for(lambda: len(db_pools.get_all(db, names=[pool_of(b) for b in BACKENDS]))
                     == len(BACKENDS), timeout=20)
    yield Stack(conf=conf, db=db, services=svcs,
                rpc=RPC(scheduler=scheduler_rpcapi.SchedulerAPI(conf),
                        volume=volume_rpcapi.VolumeAPI(conf)))
    for svc in svcs.values():
        svc.stop()


def claim(db, pool: str, size: int) -> None:
    with db.writer() as s:
        s.execute(sa.update(Pool).where(Pool.name == pool).values(
            allocated_capacity_gb=Pool.allocated_capacity_gb + size,
            provisioned_capacity_gb=Pool.provisioned_capacity_gb + size))


def claims(db) -> dict[str, float]:
    return {name: allocated for name, (allocated, _) in db_pools.claims(db).items()
            if name in {pool_of(b) for b in BACKENDS}}


def volume_on(stack: Stack, backend: str, *, size: int = 1, type_name: str = '__DEFAULT__'):
    """An available volume created on *backend* by its volume service, its claim taken."""
    vtype = db_types.get_by_name(stack.db, name=type_name)
    volume = add_volume(stack.db, size=size, host=pool_of(backend), claim=False,
                        volume_type_id=vtype.id)
    claim(stack.db, pool_of(backend), size)
    stack.rpc.volume.create_volume(ctx(), volume_id=volume.id, host=pool_of(backend),
                                   request_spec={}, filter_properties={})
    daemons.wait_for(lambda: row(stack.db, volume.id).status != 'creating', timeout=20)
    assert row(stack.db, volume.id).status == 'available'
    return row(stack.db, volume.id)


def write_pattern(path: str, *, seed: bytes, length: int = 3 * MiB + 4097) -> str:
    """Write seeded pseudo-random bytes at the start of the volume file; their sha256
    together with the untouched rest (the whole file's digest)."""
    blocks = (hashlib.sha256(seed + n.to_bytes(8, 'big')).digest()
              for n in range(length // 32 + 1))
    with open(path, 'r+b') as disk:
        disk.write(b''.join(blocks)[:length])
    return digest(path)


def digest(path: str) -> str:
    sha = hashlib.sha256()
    with open(path, 'rb') as disk:
        while block := disk.read(MiB):
            sha.update(block)
    return sha.hexdigest()


def make_type(db, name: str, **extra_specs):
    return db_types.create(db, name=name, extra_specs=extra_specs)


def exists(path: str) -> bool:
    return os.path.exists(path)

