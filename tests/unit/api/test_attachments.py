"""/attachments (3.27): create, update, complete, delete, list, show, with the volume's
statuses driven through reserved → attaching → in-use → detaching → available."""

import pytest
from falcon import testing
from oslo_messaging.notify import _impl_test

from cinderlike import notifications
from cinderlike.api.app import create_app
from cinderlike.db import attachments as db_attachments
from cinderlike.db import volume_types as db_types
from cinderlike.db import volumes as db_volumes
from tests.unit.api.attachment_fixtures import (
    CONNECTOR,
    INSTANCE,
    OTHER_INSTANCE,
    complete,
    create,
    delete,
    update,
)
from tests.unit.api.type_fixtures import PROJECT, admin, user
from tests.unit.api.volume_fixtures import add_volume, fault


def _volume(db, volume_id):
    row = db_volumes.get(db, volume_id=volume_id)
    return row.status, row.attach_status


def _attachments(db, volume_id):
    return [(a.attach_status, a.instance_uuid)
            for a in db_attachments.of_volume(db, volume_id=volume_id)]


def test_reserve_without_connector_then_update_complete_delete(aclient, seeded, mrpc, manager):
    volume = add_volume(seeded)
    resp = create(aclient, volume.id, instance_uuid=INSTANCE)
    assert resp.status_code == 200
    shown = resp.json['attachment']
    assert (shown['status'], shown['instance'], shown['volume_id']) == (
        'reserved', INSTANCE, volume.id)
    assert shown['attach_mode'] == 'null' and shown['connection_info'] == {}
    assert shown['attached_at'] == '' and shown['detached_at'] == ''
    assert _volume(seeded, volume.id) == ('reserved', 'detached')
    assert mrpc.volume.calls == []

    resp = update(aclient, shown['id'], CONNECTOR)
    assert resp.status_code == 200
    info = resp.json['attachment']['connection_info']
    assert info == {'volume_id': volume.id, 'access_mode': 'rw', 'encrypted': False,
                    'enforce_multipath': False, 'driver_volume_type': 'fake',
                    'attachment_id': shown['id']}
    assert resp.json['attachment']['status'] == 'attaching'
    assert resp.json['attachment']['attach_mode'] == 'rw'
    assert _volume(seeded, volume.id) == ('attaching', 'attaching')
    (method, kwargs), = mrpc.volume.calls
    assert (method, kwargs['host'], kwargs['connector']['host']) == (
        'attachment_update', 'node@fake#pool', 'compute-1')
    row = db_attachments.get(seeded, attachment_id=shown['id'])
    assert (row.attached_host, row.mountpoint) == ('compute-1', '/dev/vdb')

    assert complete(aclient, shown['id']).status_code == 204
    assert _volume(seeded, volume.id) == ('in-use', 'attached')
    assert aclient.simulate_get(f'/v3/attachments/{shown["id"]}', headers=admin('3.27')
                                ).json['attachment']['status'] == 'attached'
    attached = aclient.simulate_get(f'/v3/volumes/{volume.id}', headers=admin('3.48')).json
    (entry,) = attached['volume']['attachments']
    assert (entry['attachment_id'], entry['server_id'], entry['host_name']) == (
        shown['id'], INSTANCE, 'compute-1')
    assert 'shared_targets' in attached['volume'] and 'service_uuid' in attached['volume']

    resp = delete(aclient, shown['id'])
    assert resp.status_code == 200 and resp.json == {'attachments': []}
    assert _volume(seeded, volume.id) == ('available', 'detached')
    assert _attachments(seeded, volume.id) == []
    assert [m for m, _kw in mrpc.volume.calls] == ['attachment_update', 'attachment_delete']


def test_create_with_connector_connects_at_once(aclient, seeded, mrpc):
    volume = add_volume(seeded)
    resp = create(aclient, volume.id, instance_uuid=INSTANCE, connector=CONNECTOR)
    assert resp.status_code == 200
    shown = resp.json['attachment']
    assert shown['status'] == 'attaching'
    assert shown['connection_info']['driver_volume_type'] == 'fake'
    assert _volume(seeded, volume.id) == ('attaching', 'attaching')


def test_mode_from_3_54_and_read_only_volumes_connect_ro(aclient, seeded):
    volume = add_volume(seeded)
    resp = create(aclient, volume.id, version='3.54', mode='ro', connector=CONNECTOR)
    assert resp.json['attachment']['attach_mode'] == 'ro'
    assert resp.json['attachment']['connection_info']['access_mode'] == 'ro'
    readonly = add_volume(seeded)
    db_volumes.update_metadata(seeded, volume_id=readonly.id, admin=True,
                               metadata={'readonly': 'True'})
    resp = create(aclient, readonly.id, connector=CONNECTOR)
    assert resp.json['attachment']['connection_info']['access_mode'] == 'ro'


def test_mode_before_3_54_is_refused(aclient, seeded):
    volume = add_volume(seeded)
    resp = create(aclient, volume.id, version='3.53', mode='ro')
    assert resp.status_code == 400
    assert "Additional properties are not allowed ('mode' was unexpected)" in fault(resp)[1]
    assert _attachments(seeded, volume.id) == []


def test_a_second_attachment_of_a_plain_volume_is_400(aclient, seeded):
    volume = add_volume(seeded)
    assert create(aclient, volume.id, instance_uuid=INSTANCE).status_code == 200
    resp = create(aclient, volume.id, instance_uuid=OTHER_INSTANCE)
    assert fault(resp) == (400, f'Invalid volume: Volume {volume.id} status must be available '
                                'or downloading to reserve, but the current status is '
                                'reserved.')
    assert _attachments(seeded, volume.id) == [('reserved', INSTANCE)]


def test_the_same_instance_may_attach_again(aclient, seeded):
    """A migrating instance attaches its volume again on its new host (LP 1694530)."""
    volume = add_volume(seeded)
    first = create(aclient, volume.id, instance_uuid=INSTANCE, connector=CONNECTOR)
    complete(aclient, first.json['attachment']['id'])
    second = create(aclient, volume.id, instance_uuid=INSTANCE)
    assert second.status_code == 200
    assert _volume(seeded, volume.id) == ('in-use', 'attached')
    assert sorted(_attachments(seeded, volume.id)) == [('attached', INSTANCE),
                                                       ('reserved', INSTANCE)]


def _multiattach_volume(db):
    vtype = db_types.create(db, name='multi', extra_specs={'multiattach': '<is> True'})
    return add_volume(db, type_name=vtype.name, multiattach=True)


def test_a_multiattach_volume_takes_several_attachments(aclient, seeded):
    volume = _multiattach_volume(seeded)
    ids = []
    for instance in (INSTANCE, OTHER_INSTANCE):
        resp = create(aclient, volume.id, instance_uuid=instance,
                      connector=dict(CONNECTOR, host=f'host-{instance[:4]}'))
        assert resp.status_code == 200
        ids.append(resp.json['attachment']['id'])
        complete(aclient, ids[-1])
    assert _volume(seeded, volume.id) == ('in-use', 'attached')
    shown = aclient.simulate_get(f'/v3/volumes/{volume.id}', headers=admin()).json['volume']
    assert shown['multiattach'] is True and len(shown['attachments']) == 2
    resp = delete(aclient, ids[0])
    assert [a['id'] for a in resp.json['attachments']] == [ids[1]]
    assert _volume(seeded, volume.id) == ('in-use', 'attached')
    delete(aclient, ids[1])
    assert _volume(seeded, volume.id) == ('available', 'detached')


def test_list_detail_and_filters(aclient, seeded):
    one, two = add_volume(seeded), add_volume(seeded)
    first = create(aclient, one.id, instance_uuid=INSTANCE).json['attachment']
    create(aclient, two.id, instance_uuid=OTHER_INSTANCE, connector=CONNECTOR)
    listed = aclient.simulate_get('/v3/attachments', headers=admin('3.27')).json
    assert sorted(a['volume_id'] for a in listed['attachments']) == sorted([one.id, two.id])
    assert set(listed['attachments'][0]) == {'id', 'status', 'instance', 'volume_id'}
    detail = aclient.simulate_get('/v3/attachments/detail', headers=admin('3.27')).json
    assert set(detail['attachments'][0]) == {'id', 'status', 'instance', 'volume_id',
                                             'attached_at', 'detached_at', 'attach_mode',
                                             'connection_info'}
    for query, expected in ((f'volume_id={one.id}', [first['id']]),
                            (f'instance_id={INSTANCE}', [first['id']]),
                            ('status=reserved', [first['id']]),
                            ('attach_status=reserved', [first['id']])):
        resp = aclient.simulate_get('/v3/attachments', query_string=query,
                                    headers=admin('3.27'))
        assert [a['id'] for a in resp.json['attachments']] == expected, query


def test_other_projects_see_nothing(aclient, akclient, seeded):
    volume = add_volume(seeded)
    attachment = create(aclient, volume.id).json['attachment']
    resp = akclient.simulate_get(f'/v3/attachments/{attachment["id"]}',
                                 headers=user(version='3.27'))
    assert fault(resp) == (404, 'Volume attachment could not be found with filter: '
                                f'attachment_id = {attachment["id"]}.')
    assert akclient.simulate_get('/v3/attachments', headers=user(version='3.27')).json == {
        'attachments': []}


def test_a_member_attaches_its_own_volume(akclient, seeded):
    volume = add_volume(seeded, project=PROJECT)
    resp = create(akclient, volume.id, headers=user(version='3.27'), connector=CONNECTOR)
    assert resp.status_code == 200 and resp.json['attachment']['status'] == 'attaching'
    resp = create(akclient, add_volume(seeded, project=PROJECT).id,
                  headers=user(roles='reader', version='3.27'))
    assert resp.status_code == 403


@pytest.mark.parametrize('version', ['3.26', '3.0'])
def test_attachments_need_3_27(aclient, seeded, version):
    assert aclient.simulate_get('/v3/attachments', headers=admin(version)).status_code == 404
    volume = add_volume(seeded)
    assert create(aclient, volume.id, version=version).status_code == 404
    assert _attachments(seeded, volume.id) == []


def test_complete_needs_3_44(aclient, seeded):
    volume = add_volume(seeded)
    attachment = create(aclient, volume.id, connector=CONNECTOR).json['attachment']
    assert complete(aclient, attachment['id'], version='3.43').status_code == 404
    assert _volume(seeded, volume.id) == ('attaching', 'attaching')


@pytest.mark.parametrize('status', ['creating', 'error', 'deleting', 'in-use', 'maintenance'])
def test_create_in_a_wrong_status_is_400_and_writes_nothing(aclient, seeded, status):
    volume = add_volume(seeded, status=status)
    resp = create(aclient, volume.id, instance_uuid=INSTANCE)
    code, message = fault(resp)
    assert code == 400
    if status == 'error':
        assert message == ('Invalid volume: Volume attachments can not be created if the '
                           f'volume is in an error state. The Volume {volume.id} currently '
                           'has a status of: error ')
    else:
        assert message.endswith(f'to reserve, but the current status is {status}.')
    assert _volume(seeded, volume.id) == (status, 'detached')
    assert _attachments(seeded, volume.id) == []


def test_unknown_volume_is_404(aclient, seeded):
    missing = '2c5e2b86-4c67-4b7c-9a62-1d4b0c7b9f00'
    assert fault(create(aclient, missing)) == (404, f'Volume {missing} could not be found.')


@pytest.mark.parametrize('body', [
    {'attachment': {}},
    {'attachment': {'volume_uuid': 'not-a-uuid'}},
    {'attachment': {'volume_uuid': '2c5e2b86-4c67-4b7c-9a62-1d4b0c7b9f00', 'x': 1}},
    {'attachment': {'volume_uuid': '2c5e2b86-4c67-4b7c-9a62-1d4b0c7b9f00',
                    'connector': 'host-1'}},
    {}])
def test_bad_create_bodies_are_400(aclient, seeded, body):
    resp = aclient.simulate_post('/v3/attachments', json=body, headers=admin('3.27'))
    assert fault(resp)[0] == 400


def test_bad_connector_is_400_and_leaves_nothing_attached(aclient, seeded, mrpc):
    volume = add_volume(seeded)
    resp = create(aclient, volume.id, connector={'initiator': 'iqn.x'})
    assert fault(resp) == (400, "Invalid input received: Connector doesn't have required "
                                'information: host')
    assert _attachments(seeded, volume.id) == [] and mrpc.volume.calls == []
    assert _volume(seeded, volume.id) == ('available', 'detached')
    attachment = create(aclient, volume.id).json['attachment']
    for connector in ({}, {'ip': '192.0.2.1'}, 'host'):
        resp = update(aclient, attachment['id'], connector)
        assert fault(resp)[0] == 400
    assert _attachments(seeded, volume.id) == [('reserved', None)]
    assert _volume(seeded, volume.id) == ('reserved', 'detached')


def test_a_driver_failure_leaves_the_volume_available_with_a_user_message(
        aclient, seeded, manager):
    manager.conf.set_override('fake_fail', ['initialize_connection'], group='fake')
    _impl_test.reset()
    volume = add_volume(seeded)
    resp = create(aclient, volume.id, connector=CONNECTOR)
    assert resp.status_code == 500
    assert resp.json['computeFault']['message'].startswith(
        'Unable to create attachment for volume (Bad or unexpected response from the '
        'storage volume backend API: Driver initialize connection failed')
    assert _attachments(seeded, volume.id) == [('error_attaching', None)]
    assert _volume(seeded, volume.id) == ('available', 'detached')
    messages = aclient.simulate_get('/v3/messages', headers=admin('3.3')).json['messages']
    assert [m['user_message'] for m in messages] == ['update attachment:Failed to attach '
                                                     'volume.']


def test_update_of_a_volume_in_error_is_409(aclient, seeded):
    volume = add_volume(seeded)
    attachment = create(aclient, volume.id).json['attachment']
    db_volumes.MACHINE.reset(seeded, row_id=volume.id, values={'status': 'error'})
    resp = update(aclient, attachment['id'], CONNECTOR)
    assert fault(resp) == (409, 'Resource conflict: Volume attachments can not be updated if '
                                'the volume is in an error state. The Volume '
                                f'{volume.id} currently has a status of: error ')


def test_delete_of_an_in_use_volume_is_400(aclient, seeded):
    volume = add_volume(seeded)
    attachment = create(aclient, volume.id, connector=CONNECTOR).json['attachment']
    complete(aclient, attachment['id'])
    resp = aclient.simulate_delete(f'/v3/volumes/{volume.id}', headers=admin())
    assert fault(resp)[0] == 400
    assert _volume(seeded, volume.id) == ('in-use', 'attached')


def test_unknown_attachment_is_404_everywhere(aclient, seeded):
    missing = '2c5e2b86-4c67-4b7c-9a62-1d4b0c7b9f00'
    text = f'Volume attachment could not be found with filter: attachment_id = {missing}.'
    for resp in (aclient.simulate_get(f'/v3/attachments/{missing}', headers=admin('3.27')),
                 update(aclient, missing, CONNECTOR), complete(aclient, missing),
                 delete(aclient, missing)):
        assert fault(resp) == (404, text)


def test_attach_and_detach_notifications_in_order(conf, seeded, manager, mrpc):
    conf.set_override('driver', ['test'], group='oslo_messaging_notifications')
    _impl_test.reset()
    manager.notifier = notifications.VolumeNotifier(conf, seeded, host=manager.host)
    client = testing.TestClient(create_app(conf, db=seeded, rpc=mrpc))
    volume = add_volume(seeded)
    attachment = create(client, volume.id, connector=CONNECTOR).json['attachment']
    complete(client, attachment['id'])
    delete(client, attachment['id'])
    sent = [(m['publisher_id'], m['event_type'], m['payload']['volume_id'])
            for _ctx, m, _prio, _retry in _impl_test.NOTIFICATIONS]
    assert sent == [('volume.node@fake', 'volume.attach.start', volume.id),
                    (f'volume.{conf.host}', 'volume.attach.end', volume.id),
                    ('volume.node@fake', 'volume.detach.start', volume.id),
                    (f'volume.{conf.host}', 'volume.detach.end', volume.id)]
    ends = [m['payload'] for _c, m, _p, _r in _impl_test.NOTIFICATIONS]
    assert ends[1]['status'] == 'in-use' and len(ends[1]['volume_attachment']) == 1
    assert ends[3]['status'] == 'available' and ends[3]['volume_attachment'] == []


def test_a_reserved_attachment_is_deleted_without_the_backend(aclient, seeded, mrpc):
    volume = add_volume(seeded)
    attachment = create(aclient, volume.id).json['attachment']
    assert delete(aclient, attachment['id']).json == {'attachments': []}
    assert mrpc.volume.calls == [] and _volume(seeded, volume.id) == ('available', 'detached')


def test_list_pages_and_sorts(aclient, seeded):
    ids = [create(aclient, add_volume(seeded).id).json['attachment']['id'] for _ in range(3)]
    resp = aclient.simulate_get('/v3/attachments', query_string='sort=created_at:asc&limit=2',
                                headers=admin('3.27'))
    assert [a['id'] for a in resp.json['attachments']] == ids[:2]
    resp = aclient.simulate_get('/v3/attachments',
                                query_string=f'sort=created_at:asc&marker={ids[1]}',
                                headers=admin('3.27'))
    assert [a['id'] for a in resp.json['attachments']] == ids[2:]


def test_a_member_may_filter_only_on_cinders_keys(akclient, seeded):
    resp = akclient.simulate_get('/v3/attachments', query_string='attached_host=x',
                                 headers=user(version='3.27'))
    assert fault(resp) == (400, 'Invalid filters attached_host are found in query options.')


def test_a_multiattach_type_makes_multiattach_volumes_that_attach_twice(aclient, seeded):
    db_types.create(seeded, name='shared', extra_specs={'multiattach': '<is> True'})
    resp = aclient.simulate_post('/v3/volumes', headers=admin('3.50'),
                                 json={'volume': {'size': 1, 'volume_type': 'shared'}})
    assert resp.status_code == 202 and resp.json['volume']['multiattach'] is True
    volume_id = resp.json['volume']['id']
    # As the volume service would leave it: placed and available.
    db_volumes.MACHINE.reset(seeded, row_id=volume_id, values={'status': 'available',
                                                              'host': 'node@fake#pool'})
    for instance in (INSTANCE, OTHER_INSTANCE):
        made = create(aclient, volume_id, instance_uuid=instance, connector=CONNECTOR)
        assert made.status_code == 200
        complete(aclient, made.json['attachment']['id'])
    assert _volume(seeded, volume_id) == ('in-use', 'attached')
    assert len(_attachments(seeded, volume_id)) == 2
