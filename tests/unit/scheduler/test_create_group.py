"""Scheduler create_group: the one backend every volume type of the group (and the group
type's specs) fits is chosen; with none the group ends in error, unplaced."""

import uuid

import pytest

from cinderlike import context
from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.scheduler import manager as scheduler_manager
from tests.fixtures import daemons
from tests.unit.scheduler import placing


@pytest.fixture
def db():
    return daemons.make_db()


@pytest.fixture
def manager(db):
    mgr = scheduler_manager.SchedulerManager(
        daemons.make_conf(scheduler_driver_init_wait_time=1), host='s1', db=db)
    mgr.volume_api = placing.Recorder()
    yield mgr
    daemons.close_transports()


def _group(db) -> str:
    gtype = db_group_types.create(db, name=f'gt-{uuid.uuid4().hex[:6]}')
    with db.writer() as s:
        group = db_groups.create(db, session=s, volume_type_ids=[], values={
            'project_id': 'p1', 'group_type_id': gtype.id, 'availability_zone': 'nova'})
    return group.id


def _spec(group_id, *types, group_specs=None):
    return {'group_id': group_id, 'availability_zone': 'nova',
            'group_type': {'id': 'gt', 'name': 'gt', 'group_specs': group_specs or {}},
            'volume_types': [{'id': name, 'name': name, 'extra_specs': specs}
                             for name, specs in types]}


def _backends(db, manager):
    # a: capacity 500 but only 'gold'; b: 100, gold and silver; c: 300, only silver
    placing.add_backend(db, manager, 'a@x', total=500, gold=True)
    placing.add_backend(db, manager, 'b@x', total=100, gold=True, silver=True)
    placing.add_backend(db, manager, 'c@x', total=300, silver=True)


def test_the_backend_serving_every_type_is_chosen(manager, db):
    _backends(db, manager)
    group_id = _group(db)
    manager.create_group(context.RequestContext(project_id='p1'), group_id=group_id,
                         request_spec=_spec(group_id, ('gold', {'gold': '<is> True'}),
                                            ('silver', {'silver': '<is> True'})))
    group = db_groups.get(db, group_id=group_id)
    assert (group.host, group.status) == ('b@x#pool1', 'creating')
    (name, _, kwargs), = manager.volume_api.calls
    assert (name, kwargs) == ('create_group', {'group_id': group_id, 'host': 'b@x#pool1',
                                               'cluster_name': None})


def test_one_type_gets_the_best_weighed_backend(manager, db):
    _backends(db, manager)
    group_id = _group(db)
    manager.create_group(None, group_id=group_id,
                         request_spec=_spec(group_id, ('gold', {'gold': '<is> True'})))
    assert db_groups.get(db, group_id=group_id).host == 'a@x#pool1'


def test_group_specs_are_not_matched_against_capabilities(manager, db):
    """Cinder's: the group type is the resource type, without extra_specs."""
    _backends(db, manager)
    group_id = _group(db)
    manager.create_group(None, group_id=group_id, request_spec=_spec(
        group_id, ('gold', {'gold': '<is> True'}), group_specs={'silver': '<is> True',
                                                                 'nowhere': 'x'}))
    assert db_groups.get(db, group_id=group_id).host == 'a@x#pool1'


def test_no_common_backend_ends_in_error_unplaced(manager, db):
    placing.add_backend(db, manager, 'a@x', total=500, gold=True)
    placing.add_backend(db, manager, 'c@x', total=300, silver=True)
    group_id = _group(db)
    manager.create_group(None, group_id=group_id,
                         request_spec=_spec(group_id, ('gold', {'gold': '<is> True'}),
                                            ('silver', {'silver': '<is> True'})))
    group = db_groups.get(db, group_id=group_id)
    assert (group.host, group.status) == (None, 'error')
    assert manager.volume_api.calls == []
