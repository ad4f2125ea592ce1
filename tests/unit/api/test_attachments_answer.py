"""An attachment create with a connector keeps a workers row until its API answers: the
answer removes it (a PUT leaves none); a sweep that took it first ends the attachment
`error_attaching` and the API answers what is stored; a lost reply still ends in the
sweep's forced detach."""

import datetime
import logging

import oslo_messaging as messaging
import pytest
import sqlalchemy as sa

from cinderlike import context, exception
from cinderlike.db import attachments as db_attachments
from cinderlike.db import volumes as db_volumes
from cinderlike.db.models import Worker, utcnow
from cinderlike.volume import recovery
from tests.unit.api.attachment_fixtures import CONNECTOR, INSTANCE, ManagerCalls, create, update
from tests.unit.api.conftest import add_service
from tests.unit.api.volume_fixtures import add_volume

TIMEOUT = 300


def _workers(db) -> list[tuple[str, int | None]]:
    with db.reader() as s:
        return [(w.status, w.service_id) for w in s.scalars(sa.select(Worker))]


def _age_and_sweep(db, manager):
    """The create's API stalled past lost_operation_timeout: the backend's sweep runs."""
    with db.writer() as s:
        s.execute(sa.update(Worker).values(
            updated_at=utcnow() - datetime.timedelta(seconds=TIMEOUT + 5)))
    return recovery.sweep_lost(manager, context.get_admin_context())


class Then(ManagerCalls):
    """attachment_update runs on the manager, then *after()* before the reply goes."""

    def __init__(self, manager, after):
        super().__init__(manager)
        self.after = after

    def attachment_update(self, ctx, **kwargs):
        info = super().__getattr__('attachment_update')(ctx, **kwargs)
        self.after()
        return info


@pytest.fixture
def backend(conf, seeded, manager):
    """The manager's services row (the sweep takes rows for it); its volume."""
    conf.set_override('lost_operation_timeout', TIMEOUT)
    add_service(seeded, host=manager.host)
    return add_volume(seeded, host=f'{manager.host}#fake')


def test_the_answer_removes_the_row_a_creates_connect_handed_back(aclient, seeded, mrpc,
                                                                  manager, backend):
    seen = []
    mrpc.volume = Then(manager, lambda: seen.extend(_workers(seeded)))
    resp = create(aclient, backend.id, instance_uuid=INSTANCE, connector=CONNECTOR)
    assert resp.status_code == 200 and resp.json['attachment']['status'] == 'attaching'
    assert seen == [('attaching', None)]  # handed back, until the API answered
    assert _workers(seeded) == []
    # A PUT's connect (its client knows the id) keeps no row past its end.
    other = add_volume(seeded, host=backend.host)
    made = create(aclient, other.id, instance_uuid=INSTANCE).json['attachment']
    seen.clear()
    assert update(aclient, made['id'], CONNECTOR).status_code == 200
    assert seen == [] and _workers(seeded) == []


def test_a_sweep_that_took_the_row_first_stands_and_the_answer_shows_it(
        aclient, seeded, mrpc, manager, backend, caplog):
    mrpc.volume = Then(manager, lambda: _age_and_sweep(seeded, manager))
    with caplog.at_level(logging.WARNING):
        resp = create(aclient, backend.id, instance_uuid=INSTANCE, connector=CONNECTOR)
    shown = resp.json['attachment']
    assert resp.status_code == 200
    assert (shown['status'], shown['connection_info']) == ('error_attaching', {})
    assert 'took it before its create was answered' in caplog.text
    row = db_volumes.get(seeded, volume_id=backend.id)
    assert (row.status, row.attach_status) == ('available', 'detached')
    assert _workers(seeded) == []


def test_a_lost_reply_after_the_hand_back_ends_in_the_sweeps_detach(aclient, seeded, mrpc,
                                                                    manager, backend):
    def lost():
        raise messaging.MessagingTimeout('no reply')
    mrpc.volume = Then(manager, lost)
    resp = create(aclient, backend.id, instance_uuid=INSTANCE, connector=CONNECTOR)
    assert resp.status_code == 503
    (attachment,) = db_attachments.of_volume(seeded, volume_id=backend.id)
    assert attachment.attach_status == 'detaching'
    assert _workers(seeded) == [('detaching', None)]
    assert _age_and_sweep(seeded, manager) == 1
    with pytest.raises(exception.VolumeAttachmentNotFound):
        db_attachments.get(seeded, attachment_id=attachment.id)
    row = db_volumes.get(seeded, volume_id=backend.id)
    assert (row.status, row.attach_status) == ('available', 'detached')
    assert _workers(seeded) == []
