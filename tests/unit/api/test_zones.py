"""api/zones.py: a volume create trusts the zones it read for `az_cache_duration` (Cinder's
cache), and looks a zone up again before refusing it."""

import pytest

from cinderlike.api import zones
from cinderlike.db import services as db_services
from tests.fixtures.clock import Clock
from tests.unit.api.volume_fixtures import fault, post, volume_rows


@pytest.fixture
def reads(monkeypatch):
    """The zone reads made, and the clock the cache goes by."""
    made = []
    real = db_services.availability_zones
    monkeypatch.setattr(db_services, 'availability_zones',
                        lambda db, **kw: made.append(kw['binary']) or real(db, **kw))
    clock = Clock(500.0)
    monkeypatch.setattr(zones.time, 'monotonic', clock)
    return made, clock


def _service(db, host, zone):
    db_services.register(db, host=host, binary='cinder-volume', topic='cinder-volume',
                         availability_zone=zone)


def _create(client, zone):
    return post(client, {'volume': {'size': 1, 'availability_zone': zone}})


def test_creates_within_the_duration_read_the_zones_once(vclient, seeded, reads):
    made, clock = reads
    _service(seeded, 'node@a', 'nova')
    for _ in range(3):
        assert _create(vclient, 'nova').status_code == 202
    assert made == ['cinder-volume']
    clock.now += 3600
    assert _create(vclient, 'nova').status_code == 202
    assert len(made) == 2


def test_a_zone_served_since_the_last_read_is_accepted_at_once(vclient, seeded, reads):
    made, _clock = reads
    _service(seeded, 'node@a', 'nova')
    assert _create(vclient, 'nova').status_code == 202
    _service(seeded, 'node@b', 'mars')
    assert _create(vclient, 'mars').status_code == 202
    assert len(made) == 2 and len(volume_rows(seeded)) == 2


def test_an_unknown_zone_is_looked_up_again_and_refused(vclient, seeded, reads):
    made, _clock = reads
    assert _create(vclient, 'nova').status_code == 202  # storage_availability_zone
    resp = _create(vclient, 'venus')
    assert fault(resp) == (400, "Availability zone 'venus' is invalid.")
    assert len(made) == 2 and len(volume_rows(seeded)) == 1


def test_a_removed_zone_stays_known_until_the_duration_is_over(vclient, seeded, reads, conf):
    """As Cinder's cache: the scheduler then finds no backend in it."""
    _made, clock = reads
    _service(seeded, 'node@b', 'mars')
    assert _create(vclient, 'mars').status_code == 202
    db_services.soft_delete(seeded, db_services.get_all(seeded, host='node@b')[0].id)
    assert _create(vclient, 'mars').status_code == 202
    clock.now += conf.az_cache_duration
    assert fault(_create(vclient, 'mars'))[0] == 400
