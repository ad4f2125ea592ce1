"""turns.py: listing pages take turns, one set of turns per API process for every kind."""

import threading
import time

import falcon
import pytest
from falcon import testing

from cinderlike.api.app import create_app
from cinderlike.api.turns import ListingTurns
from cinderlike.db import snapshots as db_snapshots
from cinderlike.db import volumes as db_volumes
from tests.unit.api.type_fixtures import admin
from tests.unit.api.volume_fixtures import add_volume


def test_a_snapshot_listing_holds_the_turn_a_volume_listing_waits_for(conf, seeded, rpc,
                                                                       monkeypatch):
    client = testing.TestClient(create_app(conf, db=seeded, rpc=rpc))
    add_volume(seeded)
    snapshot_inside, release = threading.Event(), threading.Event()
    volume_reads = []
    real_snapshots, real_volumes = db_snapshots.get_all, db_volumes.get_all

    def snapshots_page(*args, **kwargs):
        snapshot_inside.set()
        release.wait(30)
        return real_snapshots(*args, **kwargs)

    def volumes_page(*args, **kwargs):
        volume_reads.append(time.monotonic())
        return real_volumes(*args, **kwargs)

    monkeypatch.setattr(db_snapshots, 'get_all', snapshots_page)
    monkeypatch.setattr(db_volumes, 'get_all', volumes_page)
    answers = {}

    def get(path):
        answers[path] = client.simulate_get(path, headers=admin()).status_code

    snapshots = threading.Thread(target=get, args=('/v3/snapshots/detail',))
    snapshots.start()
    assert snapshot_inside.wait(30)
    volumes = threading.Thread(target=get, args=('/v3/volumes/detail',))
    volumes.start()
    volumes.join(0.3)
    assert volume_reads == []  # the volume listing waits for the snapshot listing's turn
    release.set()
    snapshots.join(30)
    volumes.join(30)
    assert answers == {'/v3/snapshots/detail': 200, '/v3/volumes/detail': 200}
    assert len(volume_reads) == 1


def test_a_failed_build_gives_its_turn_back():
    turns = ListingTurns(1)

    def failing():
        raise ValueError('no page')

    for _ in range(2):
        with pytest.raises(ValueError):
            turns.send(falcon.Response(), failing)
    resp = falcon.Response()
    turns.send(resp, lambda: {'items': iter([1, 2])})
    assert b''.join(resp.stream) == b'{"items":[1,2]}'
