"""The volume service's own cost per volume: create and delete through VolumeManager, in-process.

    .venv/bin/python benchmarks/volume_service.py --db postgresql [-n 300] [--profile 25]

On a fresh database of the server named by CINDERLIKE_TEST_POSTGRESQL_URL (or ..._MYSQL_URL),
with the fake driver and a file:// tooz backend, it seeds N placed `creating` volumes (quota
used, capacity claimed, as the scheduler leaves them), runs `create_volume` on each, moves
them to `deleting` (as the API does) and runs `delete_volume` on each, in one thread. One
JSON line: process CPU ms per create and per delete (what the RPC dispatcher calls, no
RabbitMQ) and the SQL statements and commits each makes over half of them; Python function
calls each makes over the other half (under cProfile: a count that does not move with the
machine's load). `--profile K` prints the K costliest functions of that half to stderr.
"""

import pathlib
import sys
import tempfile

# NOTE(path): run as a script, the project root (for tests.*) is not on sys.path.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import inprocess  # noqa: E402
import sqlalchemy as sa  # noqa: E402

from cinderlike import conf as conf_pkg  # noqa: E402
from cinderlike import context, coordination, quota  # noqa: E402
from cinderlike.conf import volume as volume_conf  # noqa: E402
from cinderlike.db import engine, migration  # noqa: E402
from cinderlike.db import services as db_services  # noqa: E402
from cinderlike.db import volume_types as db_types  # noqa: E402
from cinderlike.db import volumes as db_volumes  # noqa: E402
from cinderlike.db.models import Pool, QuotaUsage, Volume  # noqa: E402
from cinderlike.drivers.volume import fake  # noqa: E402
from cinderlike.volume import manager as volume_manager  # noqa: E402

HOST = 'bench@b1'
POOL = f'{HOST}#b1'
PROJECT = 'bench'


class NoScheduler:
    """A create that fails would cast to the scheduler: none may here."""

    def create_volume(self, *_args, **_kwargs):
        raise AssertionError('a benchmark create was rescheduled')


def _manager(db, workdir):
    conf = conf_pkg.new_conf()
    conf([], default_config_files=[])
    conf.set_override('transport_url', 'fake://')
    conf.set_override('host', 'bench')
    conf.set_override('state_path', workdir)
    conf.set_override('backend_url', f'file://{workdir}/locks', group='coordination')
    volume_conf.register_backend(conf, 'b1', fake.DRIVER_OPTS)
    conf.set_override('volume_driver', 'fake', group='b1')
    conf.set_override('fake_total_capacity_gb', 1_000_000, group='b1')
    coordinator = coordination.Coordinator(conf, member_id='bench-volume')
    coordinator.start()
    mgr = volume_manager.VolumeManager(conf, host=HOST, db=db, backend='b1',
                                       coordinator=coordinator)
    mgr.scheduler_api = NoScheduler()
    mgr.driver.do_setup(None)
    mgr.initialized = True
    return conf, mgr


def _seed(db, count: int) -> list[str]:
    """N placed `creating` volumes, their quota used and their capacity claimed."""
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    db_services.register(db, host=HOST, binary='cinder-volume', topic='cinder-volume',
                         availability_zone='nova')
    # NOTE(quota): used as N committed reservations would leave it (the default limits
    # would refuse N at once); the deletes give it back.
    deltas = quota.volume_deltas(size=count, volume_type_name=vtype.name, count=count)
    with db.writer() as s:
        s.add_all(QuotaUsage(project_id=PROJECT, resource=resource, in_use=amount, reserved=0,
                             race_preventer=True) for resource, amount in deltas.items())
    with db.writer() as s:
        s.add(Pool(name=POOL, backend=HOST, allocated_capacity_gb=count,
                   provisioned_capacity_gb=count))
    ids = []
    for i in range(count):
        volume = db_volumes.create(db, values={
            'project_id': PROJECT, 'user_id': 'u1', 'status': 'creating', 'size': 1,
            'host': POOL, 'volume_type_id': vtype.id, 'attach_status': 'detached',
            'availability_zone': 'nova', 'display_name': f'bench-{i}'})
        ids.append(volume.id)
    return ids


def run(db_url: str, *, count: int, profile: int = 0) -> dict:
    migration.upgrade(db_url)
    db = engine.Database(db_url)
    with tempfile.TemporaryDirectory(prefix='cl-volbench-') as workdir:
        conf, mgr = _manager(db, workdir)
        try:
            ids = _seed(db, count)
            counter = inprocess.Counter(db.engine)
            ctx = context.RequestContext(user_id='u1', project_id=PROJECT)
            # NOTE(warm-up): the first statements compile and cache; they are not per volume.
            warm = ids[:10]
            for volume_id in warm:
                mgr.create_volume(ctx, volume_id=volume_id, request_spec={},
                                  filter_properties={})
            created, create_prof = inprocess.timed(
                lambda vid: mgr.create_volume(ctx, volume_id=vid, request_spec={},
                                              filter_properties={}),
                ids[10:], counter)
            with db.writer() as s:
                available = s.scalar(sa.select(sa.func.count()).where(
                    Volume.status == 'available', Volume.deleted.is_(False)))
                s.execute(sa.update(Volume).where(Volume.deleted.is_(False))
                          .values(status='deleting'))
            if available != count:
                raise RuntimeError(f'{available} of {count} volumes became available')
            for volume_id in warm:
                mgr.delete_volume(ctx, volume_id=volume_id)
            deleted, delete_prof = inprocess.timed(
                lambda vid: mgr.delete_volume(ctx, volume_id=vid), ids[10:], counter)
            with db.reader() as s:
                left = s.scalar(sa.select(sa.func.count()).where(Volume.deleted.is_(False)))
                claim = s.scalar(sa.select(Pool.allocated_capacity_gb))
            if left or claim:
                raise RuntimeError(f'{left} volumes left, {claim} GB still claimed')
        finally:
            mgr.coordinator.stop()
            db.dispose()
    if profile:
        inprocess.print_profiles({'create': create_prof, 'delete': delete_prof}, profile,
                                 sys.stderr)
    return {'volumes': count - len(warm), 'create': created, 'delete': deleted,
            'cpu_ms_per_volume': round(created['cpu_ms'] + deleted['cpu_ms'], 2)}


if __name__ == '__main__':
    inprocess.main(__doc__, run, count_flag='--volumes')
