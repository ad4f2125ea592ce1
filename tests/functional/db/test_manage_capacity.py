"""cinderlike-manage capacity check [--fix] against SQLite, as an operator runs it."""

import pytest

from cinderlike.cmd import manage
from cinderlike.db import engine, migration
from cinderlike.db import pools as db_pools
from tests.unit.scheduler import placing


@pytest.fixture
def config(tmp_path):
    """A config file on a new, migrated SQLite database; returns (path, Database)."""
    url = f'sqlite:///{tmp_path}/cinderlike.sqlite'
    path = tmp_path / 'cinderlike.conf'
    path.write_text(f'[database]\nconnection = {url}\n')
    migration.upgrade(url)
    db = engine.Database(url)
    yield str(path), db
    db.dispose()


def _manage(path, *argv):
    return manage.main(['cinderlike-manage', '--config-file', path, 'capacity', 'check', *argv])


def test_check_prints_drift_and_fix_repairs_it(config, capsys):
    path, db = config
    placing.record(db, 'n1@lvm', placing.capabilities(total=100))
    placing.add_volume(db, size=10, status='available', host='n1@lvm#pool1')
    assert _manage(path) == 1
    out = capsys.readouterr().out
    assert 'n1@lvm#pool1' in out and '-10' in out
    assert _manage(path, '--fix') == 0
    assert 'Repaired 1 pool(s).' in capsys.readouterr().out
    assert db_pools.claims(db) == {'n1@lvm#pool1': (10, 10)}
    assert _manage(path) == 0
    assert capsys.readouterr().out == 'No capacity drift.\n'
