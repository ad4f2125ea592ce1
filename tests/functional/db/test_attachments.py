"""Attachment races on real PostgreSQL and MariaDB: reserving an attachment, deleting the
volume and detaching all lock the volume row first, so two attachment creates of a volume
that is not multiattach leave one attachment, a delete and an attach leave one winner, and a
detach racing a force-detach ends with the attachment gone once and the volume available,
a connect's end racing a cleanup that takes it over leaves one of the two outcomes, and an
API removing the workers row a create's connect handed back races a sweep taking it over:
one of them gets it."""

import uuid

import pytest

from cinderlike import context, exception, notifications
from cinderlike.api.operations import attachments as attachment_ops
from cinderlike.api.operations import volumes as volume_ops
from cinderlike.db import attachments as db_attachments
from cinderlike.db import services as db_services
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from cinderlike.db import workers as db_workers
from tests.fixtures import daemons
from tests.fixtures.race import race, split

INSTANCE = '6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11'
OTHER_INSTANCE = '0b9f1f9e-3f2b-4c1e-8f43-4a4b2f7c9d22'


class Calls:
    """The API's rpc bundle: records casts and calls, answers attachment_update."""

    def __init__(self):
        self.scheduler = self.volume = self
        self.sent = []

    def __getattr__(self, method):
        def send(ctxt, **kwargs):
            self.sent.append(method)
            return {'driver_volume_type': 'fake'}
        return send


class AllowAll:
    def authorize(self, ctx, rule, target=None):
        return True


@pytest.fixture(scope='module')
def conf():
    return daemons.make_conf()


@pytest.fixture
def project():
    return uuid.uuid4().hex


def _ctx(project):
    return context.RequestContext(user_id='u1', project_id=project, is_admin=False)


def _volume(db, project, **values):
    vtype = db_types.get_by_name(db, name='__DEFAULT__')
    return db_volumes.create(db, values={
        'status': 'available', 'size': 1, 'host': 'node@fake#pool', 'project_id': project,
        'volume_type_id': vtype.id, 'attach_status': 'detached', **values})


def _create(db, project, volume_id, instance):
    return lambda: attachment_ops.create(db, Calls(), AllowAll(), _ctx(project),
                                         volume_id=volume_id, instance_uuid=instance,
                                         connector=None, mode=None)


def _state(db, volume_id):
    volume = db_volumes.get(db, volume_id=volume_id)
    return volume.status, volume.attach_status


@pytest.mark.parametrize('attempt', range(8))
def test_two_creates_on_a_plain_volume_one_wins(db, project, attempt):
    volume = _volume(db, project)
    winners, losers = split(race(_create(db, project, volume.id, INSTANCE),
                                 _create(db, project, volume.id, OTHER_INSTANCE)))
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], exception.InvalidVolume)
    assert 'to reserve, but the current status is reserved' in losers[0].msg
    (attachment,) = db_attachments.of_volume(db, volume_id=volume.id)
    assert attachment.id == winners[0].id and attachment.attach_status == 'reserved'
    assert _state(db, volume.id) == ('reserved', 'detached')


@pytest.mark.parametrize('attempt', range(4))
def test_a_reservation_is_exclusive_even_on_a_multiattach_volume(db, conf, project, attempt):
    """Cinder's rule: while one attachment holds the volume `reserved`, no other may
    reserve it; once attached, the next one does."""
    volume = _volume(db, project, multiattach=True)
    winners, losers = split(race(_create(db, project, volume.id, INSTANCE),
                                 _create(db, project, volume.id, OTHER_INSTANCE)))
    assert len(winners) == 1 and isinstance(losers[0], exception.InvalidVolume)
    db_attachments.begin_connect(db, attachment_id=winners[0].id)
    db_attachments.complete(db, attachment_id=winners[0].id)
    assert _create(db, project, volume.id, OTHER_INSTANCE)().attach_status == 'reserved'
    assert len(db_attachments.of_volume(db, volume_id=volume.id)) == 2
    # As Cinder: the new reservation shows on the volume's status, the attached one on its
    # attach_status.
    assert _state(db, volume.id) == ('reserved', 'attached')


@pytest.mark.parametrize('attempt', range(8))
def test_volume_delete_against_an_attach_one_wins(db, project, attempt):
    volume = _volume(db, project)
    deleted, attached = race(
        lambda: volume_ops.delete(db, Calls(), _ctx(project), volume_id=volume.id),
        _create(db, project, volume.id, INSTANCE))
    status = db_volumes.get(db, volume_id=volume.id).status
    if isinstance(attached, Exception):
        assert isinstance(attached, exception.InvalidVolume)
        assert deleted is None and status == 'deleting'
        assert db_attachments.of_volume(db, volume_id=volume.id) == []
    else:
        assert isinstance(deleted, exception.InvalidVolume) and status == 'reserved'
        assert [a.id for a in db_attachments.of_volume(db, volume_id=volume.id)] == [
            attached.id]


def _attached(db, project, conf):
    volume = _volume(db, project)
    attachment = _create(db, project, volume.id, INSTANCE)()
    _, hold = db_attachments.begin_connect(db, attachment_id=attachment.id)
    db_attachments.connected(db, attachment_id=attachment.id, hold=hold,
                             values={'connector': '{"host": "h"}', 'attached_host': 'h'})
    db_attachments.complete(db, attachment_id=attachment.id)
    assert _state(db, volume.id) == ('in-use', 'attached')
    return volume, attachment


@pytest.mark.parametrize('attempt', range(8))
def test_detach_against_a_force_detach_leaves_the_volume_available(db, conf, project,
                                                                   attempt):
    volume, attachment = _attached(db, project, conf)
    notifier = notifications.VolumeNotifier(conf, db, host='api')
    admin = context.RequestContext(user_id='admin', project_id=project, is_admin=True)
    results = race(
        lambda: attachment_ops.delete(db, Calls(), _ctx(project), attachment_id=attachment.id,
                                      notifier=notifier),
        lambda: attachment_ops.delete(db, Calls(), admin, attachment_id=attachment.id,
                                      notifier=notifier, force=True))
    winners, losers = split(results)
    assert winners, results
    # A detach that came second found the attachment detaching (or gone): refused.
    assert all(isinstance(e, (exception.InvalidVolume, exception.VolumeAttachmentNotFound))
               for e in losers)
    assert db_attachments.of_volume(db, volume_id=volume.id) == []
    assert _state(db, volume.id) == ('available', 'detached')


@pytest.mark.parametrize('attempt', range(8))
def test_complete_against_a_delete_leaves_no_attachment(db, conf, project, attempt):
    """os-complete and DELETE of a connecting attachment: either the delete moved it to
    detaching first and complete is refused, or complete won and the delete then detached
    the attached attachment; either way it is gone and the volume available, never in use
    without an attachment."""
    volume = _volume(db, project)
    attachment = _create(db, project, volume.id, INSTANCE)()
    db_attachments.begin_connect(db, attachment_id=attachment.id)
    notifier = notifications.VolumeNotifier(conf, db, host='api')
    completed, deleted = race(
        lambda: db_attachments.complete(db, attachment_id=attachment.id),
        lambda: attachment_ops.delete(db, Calls(), _ctx(project), attachment_id=attachment.id,
                                      notifier=notifier))
    left = db_attachments.of_volume(db, volume_id=volume.id)
    if isinstance(completed, Exception):
        # The delete moved it to detaching first: complete was refused (400), or found the
        # row already gone (404) when the whole delete ran before it.
        assert isinstance(completed, (exception.InvalidVolume,
                                      exception.VolumeAttachmentNotFound)) and left == []
        assert _state(db, volume.id) == ('available', 'detached')
    else:
        assert not isinstance(deleted, Exception)
        assert left == [] and _state(db, volume.id) == ('available', 'detached')


@pytest.mark.parametrize('attempt', range(4))
def test_two_finish_detaches_delete_the_attachment_once(db, conf, project, attempt):
    volume, attachment = _attached(db, project, conf)
    db_attachments.begin_detach(db, attachment_id=attachment.id)
    results = race(*[lambda: db_attachments.finish_detach(
        db, volume_id=volume.id, attachment_id=attachment.id)] * 2)
    assert results == [[], []]
    assert _state(db, volume.id) == ('available', 'detached')


@pytest.mark.parametrize('attempt', range(6))
def test_a_connect_ending_against_a_cleanup_taking_it_over_one_wins(db, project, attempt):
    """The volume service records its connect while a cleanup takes the connect's workers
    row over and settles it error_attaching: one outcome stands, whole, and the row goes."""
    volume = _volume(db, project)
    attachment = _create(db, project, volume.id, INSTANCE)()
    owner, peer = (db_services.register(db, host=f'{name}-{project}@fake',
                                        binary='cinder-volume', topic='cinder-volume',
                                        availability_zone='nova') for name in ('a', 'b'))
    _row, hold = db_attachments.begin_connect(db, attachment_id=attachment.id,
                                              service_id=owner.id)
    worker = db_workers.get(db, resource_type='Attachment', resource_id=attachment.id)

    def cleanup():
        taken = db_workers.take_over(db, worker=worker, service_id=peer.id)
        return taken is not None and db_attachments.connect_failed(
            db, attachment_id=attachment.id, hold=taken)

    connected, settled = race(
        lambda: db_attachments.connected(db, attachment_id=attachment.id, hold=hold, values={
            'connector': '{"host": "h"}', 'connection_info': '{}', 'attached_host': 'h'}),
        cleanup)
    assert [connected, settled].count(True) == 1, (connected, settled)
    stored = db_attachments.get(db, attachment_id=attachment.id)
    if connected:
        assert (stored.attach_status, stored.connection_info) == ('attaching', '{}')
        assert _state(db, volume.id) == ('attaching', 'attaching')
    else:
        assert (stored.attach_status, stored.connection_info) == ('error_attaching', None)
        assert _state(db, volume.id) == ('available', 'detached')
    assert db_workers.get(db, resource_type='Attachment', resource_id=attachment.id) is None


@pytest.mark.parametrize('attempt', range(6))
def test_the_apis_answer_against_a_sweep_taking_the_handed_back_row_one_wins(db, project,
                                                                             attempt):
    """A create's connect handed its workers row back; the API removing it to answer and a
    sweep taking it over (the API presumed dead) race: exactly one of them gets it."""
    volume = _volume(db, project)
    attachment = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=INSTANCE,
                                        attach_mode='rw', connecting=True)
    owner, sweeper = (db_services.register(db, host=f'{name}-{project}@fake',
                                           binary='cinder-volume', topic='cinder-volume',
                                           availability_zone='nova') for name in ('a', 'b'))
    _row, hold = db_attachments.begin_connect(db, attachment_id=attachment.id,
                                              service_id=owner.id)
    assert db_attachments.connected(db, attachment_id=attachment.id, hold=hold, values={
        'connector': '{"host": "h"}', 'connection_info': '{}', 'attached_host': 'h'})
    worker = db_workers.get(db, resource_type='Attachment', resource_id=attachment.id)
    assert (worker.status, worker.service_id) == ('attaching', None)

    answered, taken = race(
        lambda: db_attachments.connect_answered(db, attachment_id=attachment.id),
        lambda: db_workers.take_over(db, worker=worker, service_id=sweeper.id))
    assert [answered, taken is not None].count(True) == 1, (answered, taken)
    left = db_workers.get(db, resource_type='Attachment', resource_id=attachment.id)
    if answered:
        assert left is None
    else:
        assert (left.service_id, left.epoch) == (sweeper.id, worker.epoch + 1)
