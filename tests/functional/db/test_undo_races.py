"""Races of the API's undo of a cast or call it could not send against the service taking
the operation up, on PostgreSQL and MariaDB, where no workers row fences them: a reserved
attachment (undo_reserve against begin_connect) and a group create (undo_create against
the scheduler placing it). Exactly one side wins, and what it leaves is whole."""

import uuid

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import attachments as db_attachments
from cinderlike.db import group_types as db_group_types
from cinderlike.db import groups as db_groups
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Group, QuotaUsage
from tests.fixtures.race import race


def _volume(db):
    vtype = db_types.create(db, name=f't-{uuid.uuid4()}')
    return db_volumes.create(db, values={
        'status': 'available', 'size': 1, 'host': 'node@fake#pool', 'project_id': 'p1',
        'volume_type_id': vtype.id, 'attach_status': 'detached'})


@pytest.mark.parametrize('attempt', range(5))
def test_undoing_a_reservation_and_the_service_connecting_it_exactly_one_wins(db, attempt):
    volume = _volume(db)
    row = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=None,
                                 attach_mode='rw', connecting=True)
    undone, connected = race(lambda: db_attachments.undo_reserve(db, attachment_id=row.id),
                             lambda: db_attachments.begin_connect(db, attachment_id=row.id))
    left = db_attachments.of_volume(db, volume_id=volume.id)
    status = db_volumes.get(db, volume_id=volume.id).status
    if undone is True:
        # The undo won: no attachment, the volume available; the service found none.
        assert isinstance(connected, exception.VolumeAttachmentNotFound)
        assert (left, status) == ([], 'available')
        assert db_workers.get(db, resource_type='Attachment', resource_id=row.id) is None
    else:
        # The service began connecting first: the reservation stands, the connect holds
        # the workers row the reservation wrote.
        assert undone is False and connected[0].attach_status == 'attaching'
        assert [a.attach_status for a in left] == ['attaching'] and status == 'attaching'
        worker = db_workers.get(db, resource_type='Attachment', resource_id=row.id)
        assert (worker.status, worker.epoch) == ('attaching', 2)


@pytest.mark.parametrize('attempt', range(5))
def test_undoing_a_group_create_and_the_scheduler_placing_it_exactly_one_wins(db, attempt):
    gtype = db_group_types.create(db, name=f'gt-{uuid.uuid4()}')
    project = f'p-{uuid.uuid4()}'
    with db.writer() as s:
        s.add(QuotaUsage(project_id=project, resource='groups', in_use=1, reserved=0,
                         race_preventer=True, deleted=False))
        group = db_groups.create(db, session=s, volume_type_ids=[], values={
            'project_id': project, 'user_id': 'u1', 'group_type_id': gtype.id,
            'availability_zone': 'nova'})
    undone, placed = race(
        lambda: db_groups.undo_create(db, group=group, deltas={'groups': 1}),
        lambda: db_groups.place(db, group_id=group.id, host='node@b1#b1', cluster_name=None))
    with db.reader() as s:
        row = s.get(Group, group.id)
        used = s.scalar(sa.select(QuotaUsage.in_use).where(
            QuotaUsage.project_id == project, QuotaUsage.resource == 'groups'))
    assert (undone, placed) in ((True, False), (False, True))
    if undone:
        assert (row.deleted, used) == (True, 0)
    else:
        assert (row.deleted, row.host, used) == (False, 'node@b1#b1', 1)
