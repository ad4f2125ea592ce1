"""Attachments a dead service left in flight end in a terminal status (volume/recovery.py):
a connect its volume service died in is `error_attaching` after the restart (the export
removed, the volume's status recomputed, a user message), a detach its API died in is
resumed by the backend's sweep, a reservation to connect whose API died before the call is
undone by it, a create's connect whose API died before answering is `error_attaching`
after it, and a displaced connect cannot overwrite the outcome."""

import datetime

import pytest
import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import attachments as db_attachments
from cinderlike.db import services as db_services
from cinderlike.db import workers as db_workers
from cinderlike.db.models import Message, Service, Worker, utcnow
from cinderlike.drivers.volume import base
from cinderlike.volume import recovery
from tests.unit.volume.conftest import PROJECT, add_volume, ctx, row, workers
from tests.unit.volume.test_attachments import CONNECTOR, INSTANCE, Calls

ATTACH_ERROR = 'VOLUME_VOLUME_004_021'
TIMEOUT = 300


def _reserved(db):
    volume = add_volume(db, status='available')
    return volume, db_attachments.reserve(db, volume_id=volume.id, instance_uuid=INSTANCE,
                                          attach_mode='null')


def _messages(db) -> list[tuple[str, str, str]]:
    with db.reader() as s:
        return [tuple(r) for r in s.execute(sa.select(
            Message.event_id, Message.project_id, Message.resource_uuid))]


def _attachment(db, attachment_id):
    with db.reader() as s:
        return s.get(db_attachments.VolumeAttachment, attachment_id)


def test_a_connect_writes_its_workers_row_and_removes_it_with_the_outcome(manager, db):
    volume, attachment = _reserved(db)
    _row, hold = db_attachments.begin_connect(db, attachment_id=attachment.id,
                                              service_id=manager.service_id)
    assert [(w.resource_type, w.resource_id, w.status, w.service_id) for w in workers(db)] == [
        ('Attachment', attachment.id, 'attaching', manager.service_id)]
    assert db_attachments.connected(db, attachment_id=attachment.id, hold=hold,
                                    values={'connector': '{}', 'connection_info': '{}'})
    assert workers(db) == []
    manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=attachment.id,
                              connector=dict(CONNECTOR))
    assert workers(db) == [] and row(db, volume.id).status == 'attaching'


def test_a_connect_the_service_died_in_is_error_attaching_after_its_restart(manager, db):
    volume, attachment = _reserved(db)
    # The service took the connect, exported the volume and died before recording it.
    db_attachments.begin_connect(db, attachment_id=attachment.id,
                                 service_id=manager.service_id)
    manager.driver.create_export(base.VolumeRef.of(volume), CONNECTOR)
    assert row(db, volume.id).status == 'attaching'
    calls = Calls(manager.driver, 'remove_export')
    assert recovery.do_cleanup(manager, ctx(), recovery.own_request(manager)) == 1
    assert _attachment(db, attachment.id).attach_status == 'error_attaching'
    assert (row(db, volume.id).status, row(db, volume.id).attach_status) == (
        'available', 'detached')
    assert [c[:2] for c in calls.made] == [('remove_export', volume.id)]
    assert workers(db) == []
    assert _messages(db) == [(ATTACH_ERROR, PROJECT, volume.id)]
    # The volume takes a new attachment.
    again = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=INSTANCE,
                                   attach_mode='null')
    manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=again.id,
                              connector=dict(CONNECTOR))
    assert _attachment(db, again.id).connection_info is not None


def test_an_interrupted_connect_keeps_the_export_another_attachment_uses(manager, db):
    volume = add_volume(db, status='available', multiattach=True)
    first = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=INSTANCE,
                                   attach_mode='null')
    manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=first.id,
                              connector=dict(CONNECTOR))
    db_attachments.complete(db, attachment_id=first.id)
    second = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=None,
                                    attach_mode='null')
    db_attachments.begin_connect(db, attachment_id=second.id, service_id=manager.service_id)
    calls = Calls(manager.driver, 'remove_export')
    assert recovery.do_cleanup(manager, ctx(), recovery.own_request(manager)) == 1
    assert calls.made == []
    assert _attachment(db, second.id).attach_status == 'error_attaching'
    assert _attachment(db, first.id).attach_status == 'attached'
    assert row(db, volume.id).status == 'in-use'


def test_a_displaced_connect_cannot_overwrite_the_cleanup(manager, db):
    volume, attachment = _reserved(db)
    _row, hold = db_attachments.begin_connect(db, attachment_id=attachment.id,
                                              service_id=manager.service_id)
    (taken,) = workers(db)
    peer = db_services.register(db, host='node2@lvm', binary='cinder-volume',
                                topic='cinder-volume', availability_zone='nova')
    assert db_workers.take_over(db, worker=taken, service_id=peer.id)
    assert not db_attachments.connected(db, attachment_id=attachment.id, hold=hold,
                                        values={'connector': '{}', 'connection_info': '{}'})
    stored = _attachment(db, attachment.id)
    assert stored.attach_status == 'attaching' and stored.connection_info is None
    assert len(workers(db)) == 1


def test_a_detach_whose_api_died_is_resumed_by_the_backends_sweep(conf, manager, db):
    conf.set_override('lost_operation_timeout', TIMEOUT)
    volume, attachment = _reserved(db)
    manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=attachment.id,
                              connector=dict(CONNECTOR))
    db_attachments.complete(db, attachment_id=attachment.id)
    # The API began the detach (its workers row, no service) and died before the call.
    assert db_attachments.begin_detach(db, attachment_id=attachment.id) == 'attached'
    (untaken,) = workers(db)
    assert (untaken.status, untaken.service_id) == ('detaching', None)
    assert recovery.sweep_lost(manager, ctx()) == 0  # not lost yet
    _age(db, TIMEOUT + 5)
    calls = Calls(manager.driver, 'terminate_connection', 'remove_export')
    assert recovery.sweep_lost(manager, ctx()) == 1
    assert [c[0] for c in calls.made] == ['terminate_connection', 'remove_export']
    with pytest.raises(exception.VolumeAttachmentNotFound):
        db_attachments.get(db, attachment_id=attachment.id)
    assert (row(db, volume.id).status, row(db, volume.id).attach_status) == (
        'available', 'detached')
    assert workers(db) == [] and _messages(db) == []


@pytest.mark.parametrize('ending', ['undo', 'finish', 'failed'])
def test_every_end_of_a_detach_removes_its_workers_row(manager, db, ending):
    volume, attachment = _reserved(db)
    manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=attachment.id,
                              connector=dict(CONNECTOR))
    before = db_attachments.begin_detach(db, attachment_id=attachment.id)
    assert len(workers(db)) == 1
    if ending == 'undo':
        assert db_attachments.undo_detach(db, attachment_id=attachment.id, status=before)
    elif ending == 'finish':
        db_attachments.finish_detach(db, volume_id=volume.id, attachment_id=attachment.id)
    else:
        assert db_attachments.detach_failed(db, attachment_id=attachment.id)
    assert workers(db) == []


def _age(db, seconds):
    with db.writer() as s:
        s.execute(sa.update(Worker).values(
            updated_at=utcnow() - datetime.timedelta(seconds=seconds)))


def test_a_reservation_to_connect_whose_api_died_is_undone_by_the_sweep(conf, manager, db):
    conf.set_override('lost_operation_timeout', TIMEOUT)
    volume = add_volume(db, status='available')
    attachment = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=INSTANCE,
                                        attach_mode='null', connecting=True)
    assert [(w.status, w.service_id) for w in workers(db)] == [('reserved', None)]
    assert row(db, volume.id).status == 'reserved'
    _age(db, TIMEOUT + 5)
    assert recovery.sweep_lost(manager, ctx()) == 1
    with pytest.raises(exception.VolumeAttachmentNotFound):
        db_attachments.get(db, attachment_id=attachment.id)
    assert row(db, volume.id).status == 'available' and workers(db) == []
    assert _messages(db) == [(ATTACH_ERROR, PROJECT, volume.id)]


def _connected_create(manager, db, **values):
    """An attachment create's reservation and its connect, as far as the volume service
    goes: the API has not answered yet."""
    volume = add_volume(db, status='available', **values)
    attachment = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=INSTANCE,
                                        attach_mode='null', connecting=True)
    manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=attachment.id,
                              connector=dict(CONNECTOR))
    return volume, attachment


def test_a_creates_connect_hands_its_row_back_for_the_api_to_remove(manager, db):
    volume, attachment = _connected_create(manager, db)
    assert [(w.status, w.service_id) for w in workers(db)] == [('attaching', None)]
    assert row(db, volume.id).status == 'attaching'
    assert db_attachments.connect_answered(db, attachment_id=attachment.id)
    assert workers(db) == []
    assert not db_attachments.connect_answered(db, attachment_id=attachment.id)
    stored = _attachment(db, attachment.id)
    assert stored.attach_status == 'attaching' and stored.connection_info is not None
    plain = add_volume(db, status='available')
    db_attachments.reserve(db, volume_id=plain.id, instance_uuid=INSTANCE, attach_mode='null')
    assert workers(db) == []  # a plain reservation is no operation in flight


def test_a_connected_create_whose_api_died_before_answering_is_swept(conf, manager, db):
    """Nobody learned the attachment's id: the sweep terminates the stored connector's
    connection, removes the export and ends it error_attaching with a message."""
    conf.set_override('lost_operation_timeout', TIMEOUT)
    volume, attachment = _connected_create(manager, db)
    assert recovery.sweep_lost(manager, ctx()) == 0  # its API may still answer
    _age(db, TIMEOUT + 5)
    calls = Calls(manager.driver, 'terminate_connection', 'remove_export')
    assert recovery.sweep_lost(manager, ctx()) == 1
    assert calls.made == [('terminate_connection', volume.id, CONNECTOR),
                          ('remove_export', volume.id)]
    stored = _attachment(db, attachment.id)
    assert (stored.attach_status, stored.connection_info) == ('error_attaching', None)
    assert (row(db, volume.id).status, row(db, volume.id).attach_status) == (
        'available', 'detached')
    assert workers(db) == [] and _messages(db) == [(ATTACH_ERROR, PROJECT, volume.id)]
    # An API answering this late removes nothing; the volume takes a new attachment.
    assert not db_attachments.connect_answered(db, attachment_id=attachment.id)
    _volume, again = _connected_create(manager, db)
    assert db_attachments.connect_answered(db, attachment_id=again.id)


def test_only_the_volumes_backend_sweeps_an_unanswered_connect(conf, manager, db):
    conf.set_override('lost_operation_timeout', TIMEOUT)
    peer = db_services.register(db, host='node2@lvm', binary='cinder-volume',
                                topic='cinder-volume', availability_zone='nova')
    volume = add_volume(db, status='available', host='node2@lvm#lvm', claim=False)
    attachment = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=INSTANCE,
                                        attach_mode='null', connecting=True)
    _row, hold = db_attachments.begin_connect(db, attachment_id=attachment.id,
                                              service_id=peer.id)
    assert hold.awaited
    assert db_attachments.connected(db, attachment_id=attachment.id, hold=hold,
                                    values={'connector': '{}', 'connection_info': '{}'})
    _age(db, TIMEOUT + 5)
    assert recovery.sweep_lost(manager, ctx()) == 0
    assert [(w.status, w.service_id) for w in workers(db)] == [('attaching', None)]


def test_a_creates_connect_on_a_down_peer_is_still_taken_over(conf, manager, db):
    conf.set_override('cluster', 'c1')
    peer = db_services.register(db, host='node2@lvm', binary='cinder-volume',
                                topic='cinder-volume', availability_zone='nova',
                                cluster_name='c1@lvm')
    with db.writer() as s:
        s.execute(sa.update(Service).where(Service.id == peer.id).values(
            updated_at=utcnow() - datetime.timedelta(seconds=600)))
    volume = add_volume(db, status='available')
    attachment = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=INSTANCE,
                                        attach_mode='null', connecting=True)
    _row, hold = db_attachments.begin_connect(db, attachment_id=attachment.id,
                                              service_id=peer.id)
    assert recovery.clean_down_peers(manager, ctx()) == 1
    assert _attachment(db, attachment.id).attach_status == 'error_attaching'
    assert row(db, volume.id).status == 'available' and workers(db) == []
    assert _messages(db) == [(ATTACH_ERROR, PROJECT, volume.id)]
    # The displaced connect's late end is refused, and leaves no row for its API.
    assert not db_attachments.connected(db, attachment_id=attachment.id, hold=hold,
                                        values={'connector': '{}', 'connection_info': '{}'})
    assert workers(db) == []


def test_a_connect_displaced_while_exporting_removes_its_own_connection(manager, db):
    volume, attachment = _reserved(db)
    peer = db_services.register(db, host='node2@lvm', binary='cinder-volume',
                                topic='cinder-volume', availability_zone='nova')
    real = manager.driver.initialize_connection

    def taken_over_meanwhile(ref, connector):
        (taken,) = workers(db)
        assert db_workers.take_over(db, worker=taken, service_id=peer.id)
        return real(ref, connector)

    manager.driver.initialize_connection = taken_over_meanwhile
    calls = Calls(manager.driver, 'terminate_connection', 'remove_export')
    with pytest.raises(exception.InvalidVolume):
        manager.attachment_update(ctx(), volume_id=volume.id, attachment_id=attachment.id,
                                  connector=dict(CONNECTOR))
    assert calls.made == [('terminate_connection', volume.id, CONNECTOR),
                          ('remove_export', volume.id)]
    stored = _attachment(db, attachment.id)
    assert stored.attach_status == 'attaching' and stored.connection_info is None
