"""cinderlike-manage cluster list|remove|rename against a SQLite file."""

import datetime

import pytest
import sqlalchemy as sa

from cinderlike.cmd import manage
from cinderlike.db import clusters, engine, models, services
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Service, VolumeType, utcnow

TYPE_ID = '00000000-0000-0000-0000-000000000001'


@pytest.fixture
def setup(tmp_path):
    """(config path, database) with the schema, a type, and cluster c1@lvm of two members."""
    url = f'sqlite:///{tmp_path}/cinderlike.sqlite'
    path = tmp_path / 'cinderlike.conf'
    path.write_text(f'[DEFAULT]\nservice_down_time = 60\n\n[database]\nconnection = {url}\n')
    db = engine.Database(url)
    models.Base.metadata.create_all(db.engine)
    with db.writer() as session:
        session.add(VolumeType(id=TYPE_ID, name='t'))
    clusters.ensure(db, name='c1@lvm', binary='cinder-volume')
    for host, age in (('n1@lvm', 0), ('n2@lvm', 600)):
        row = services.register(db, host=host, binary='cinder-volume', topic='cinder-volume',
                                availability_zone='nova', cluster_name='c1@lvm')
        beat = utcnow() - datetime.timedelta(seconds=age)
        with db.writer() as session:
            session.execute(sa.update(Service).where(Service.id == row.id).values(
                updated_at=beat))
    yield str(path), db
    db.dispose()


def _manage(path, *argv):
    return manage.main(['cinderlike-manage', '--config-file', path, 'cluster', *argv])


def _volume(db, host, cluster_name):
    return db_volumes.create(db, values={'host': host, 'cluster_name': cluster_name, 'size': 1,
                                         'status': 'available', 'volume_type_id': TYPE_ID}).id


def test_list(setup, capsys):
    path, db = setup
    clusters.ensure(db, name='empty@nfs', binary='cinder-volume')
    assert _manage(path, 'list') == 0
    header, first, second = capsys.readouterr().out.splitlines()
    assert header.split() == ['Name', 'Binary', 'Status', 'State', 'Heartbeat', 'Hosts',
                              'Down', 'Hosts', 'Updated', 'At']
    name, binary, status, state, _day, _time, hosts, down, updated = first.split()
    assert (name, binary, status, state, hosts, down, updated) == (
        'c1@lvm', 'cinder-volume', 'enabled', ':-)', '2', '1', 'None')
    assert second.split() == ['empty@nfs', 'cinder-volume', 'enabled', 'XXX', 'None', '0', '0',
                              'None']


def test_remove_refuses_while_it_has_hosts(setup, capsys):
    path, db = setup
    assert _manage(path, 'remove', 'cinder-volume', 'c1@lvm') == 2
    assert capsys.readouterr().out == "Couldn't remove cluster c1@lvm because it still has hosts.\n"
    assert clusters.get(db, name='c1@lvm', down_time=60).num_hosts == 2


def test_remove_recursive_takes_the_members(setup, capsys):
    path, db = setup
    assert _manage(path, 'remove', '--recursive', 'cinder-volume', 'c1@lvm') == 0
    assert capsys.readouterr().out == (
        'Cluster c1@lvm successfully removed. And 2 services from the cluster were also '
        'removed.\n')
    assert clusters.get_all(db, down_time=60) == []
    assert services.get_all(db) == []


def test_remove_an_empty_cluster(setup, capsys):
    path, db = setup
    clusters.ensure(db, name='empty@nfs', binary='cinder-volume')
    assert _manage(path, 'remove', 'cinder-volume', 'empty@nfs') == 0
    assert capsys.readouterr().out == 'Cluster empty@nfs successfully removed.\n'


@pytest.mark.parametrize('binary, name', [('cinder-volume', 'nope'),
                                          ('cinder-backup', 'c1@lvm')])
def test_remove_missing(setup, capsys, binary, name):
    path, db = setup
    assert _manage(path, 'remove', binary, name) == 2
    assert capsys.readouterr().out == f"Couldn't remove cluster {name} because it doesn't exist.\n"
    assert len(clusters.get_all(db, down_time=60)) == 1


def test_rename_partial_then_full(setup, capsys):
    path, db = setup
    first = _volume(db, 'n1@lvm#fast', 'c1@lvm#fast')
    second = _volume(db, 'n2@lvm#slow', 'c1@lvm#slow')
    assert _manage(path, 'rename', 'c1', 'c9') == 0
    assert capsys.readouterr().out == 'Successfully renamed 2 volumes from cluster c1 to c9\n'
    names = lambda: [db_volumes.get(db, volume_id=v).cluster_name  # noqa: E731
                     for v in (first, second)]
    assert names() == ['c9@lvm#fast', 'c9@lvm#slow']
    assert _manage(path, 'rename', '--full-rename', 'c9@lvm#fast', 'other@lvm#p') == 0
    assert names() == ['other@lvm#p', 'c9@lvm#slow']


def test_rename_of_an_empty_cluster(setup, capsys):
    path, _db = setup
    assert _manage(path, 'rename', 'nothing', 'c9') == 2
    assert capsys.readouterr().out == 'No volumes exist in cluster nothing.\n'
