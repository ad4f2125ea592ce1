"""User messages: create() as services call it, and GET/DELETE /messages as Cinder serves them."""

import datetime

import pytest
import sqlalchemy as sa

from cinderlike import context, exception, messages
from cinderlike.db import messages as db_messages
from cinderlike.db.models import Message, utcnow

V33 = {'OpenStack-API-Version': 'volume 3.3'}
V35 = {'OpenStack-API-Version': 'volume 3.5'}
V331 = {'OpenStack-API-Version': 'volume 3.31'}


def identity(roles, project='p1', version=V35):
    return dict(version, **{'X-User-Id': 'u1', 'X-Project-Id': project, 'X-Roles': roles})


ADMIN = identity('admin', project='admin')


def record(db, conf, project='p1', detail=messages.Detail.NO_BACKEND_AVAILABLE,
           action=messages.Action.SCHEDULE_ALLOCATE_VOLUME, **kwargs):
    ctx = context.RequestContext(project_id=project, user_id='u1')
    messages.create(db, ctx, conf=conf, action=action, detail=detail, **kwargs)
    return db_messages.get_all(db, project_id=project, sort=[('created_at', 'desc')])[0]


def live_count(db):
    with db.reader() as s:
        return s.scalar(sa.select(sa.func.count()).select_from(Message).where(
            Message.deleted.is_(False)))


class TestCreate:
    def test_no_valid_backend_is_volume_001_003(self, db, conf):
        row = record(db, conf, resource_uuid='vol-1')
        assert (row.event_id, row.action_id, row.detail_id, row.message_level,
                row.resource_type, row.resource_uuid) == (
            'VOLUME_VOLUME_001_003', '001', '003', 'ERROR', 'VOLUME', 'vol-1')
        ttl = (row.expires_at - row.created_at).total_seconds()
        assert ttl == pytest.approx(conf.message_ttl, abs=5)

    def test_a_mapped_exception_decides_the_detail(self, db, conf):
        row = record(db, conf, detail=messages.Detail.UNKNOWN_ERROR,
                     exception=exception.NoValidBackend(reason='x'))
        assert row.event_id == 'VOLUME_VOLUME_001_003'

    def test_an_unmapped_exception_without_detail_is_unknown(self, db, conf):
        row = record(db, conf, detail=None, exception=ValueError('secret'),
                     action=messages.Action.EXTEND_VOLUME)
        assert row.event_id == 'VOLUME_VOLUME_007_001'

    def test_in_a_session_it_commits_or_rolls_back_with_the_callers_write(self, db, conf):
        ctx = context.RequestContext(project_id='p1', user_id='u1')
        callers = {'project_id': 'p1', 'event_id': 'VOLUME_VOLUME_001_003',
                   'message_level': 'ERROR'}
        with pytest.raises(RuntimeError), db.writer() as s:
            db_messages.create(db, values=callers, session=s)  # the caller's own write
            messages.create(db, ctx, conf=conf, action=messages.Action.SCHEDULE_ALLOCATE_VOLUME,
                            resource_uuid='vol-1', session=s)
            raise RuntimeError('the caller failed')
        assert live_count(db) == 0
        with db.writer() as s:
            db_messages.create(db, values=callers, session=s)
            messages.create(db, ctx, conf=conf, action=messages.Action.SCHEDULE_ALLOCATE_VOLUME,
                            resource_uuid='vol-1', session=s)
        assert live_count(db) == 2

    def test_in_a_session_a_failed_write_undoes_only_itself(self, db, conf, monkeypatch):
        ctx = context.RequestContext(project_id='p1', user_id='u1')
        real = db_messages.create

        def written_then_failed(db, *, values, session=None):
            real(db, values=values, session=session)
            raise sa.exc.OperationalError('INSERT', {}, RuntimeError('boom'))
        with db.writer() as s:
            real(db, values={'project_id': 'p1', 'event_id': 'VOLUME_VOLUME_001_003',
                             'message_level': 'ERROR'}, session=s)
            monkeypatch.setattr(db_messages, 'create', written_then_failed)
            messages.create(db, ctx, conf=conf, action=messages.Action.SCHEDULE_ALLOCATE_VOLUME,
                            resource_uuid='vol-2', session=s)
        assert [m.resource_uuid for m in db_messages.get_all(db, project_id='p1')] == [None]

    def test_backup_resource_type(self, db, conf):
        row = record(db, conf, resource_type=messages.Resource.VOLUME_BACKUP,
                     action=messages.Action.BACKUP_CREATE,
                     detail=messages.Detail.BACKUP_SERVICE_DOWN)
        assert row.event_id == 'VOLUME_VOLUME_BACKUP_013_018'

    def test_user_message_texts(self):
        assert messages.user_message('001', '003') == (
            'schedule allocate volume:Could not find any available weighted backend.')
        assert messages.user_message('999', '999') == 'unknown action:An unknown error occurred.'

    def test_expired_messages_are_purged(self, db, conf):
        old = record(db, conf)
        record(db, conf)
        with db.writer() as s:
            s.execute(sa.update(Message).where(Message.id == old.id).values(
                expires_at=utcnow() - datetime.timedelta(seconds=1)))
        assert messages.purge_expired(db) == 1
        assert live_count(db) == 1


class TestShowAndDelete:
    def test_show_fields(self, keystone_client, db, conf):
        row = record(db, conf, resource_uuid='vol-1')
        resp = keystone_client.simulate_get(f'/v3/p1/messages/{row.id}',
                                            headers=identity('reader', version=V33))
        assert resp.status_code == 200
        shown = resp.json['message']
        assert shown == {
            'id': row.id, 'event_id': 'VOLUME_VOLUME_001_003',
            'user_message': 'schedule allocate volume:Could not find any available weighted '
                            'backend.',
            'message_level': 'ERROR', 'resource_type': 'VOLUME', 'resource_uuid': 'vol-1',
            'created_at': row.created_at.strftime('%Y-%m-%dT%H:%M:%S.%f'),
            'guaranteed_until': row.expires_at.strftime('%Y-%m-%dT%H:%M:%S.%f'),
            'request_id': row.request_id, 'links': shown['links']}
        assert [link['rel'] for link in shown['links']] == ['self', 'bookmark']
        assert shown['links'][0]['href'].endswith(f'/v3/p1/messages/{row.id}')

    def test_before_3_3_there_are_no_messages(self, keystone_client, db, conf):
        row = record(db, conf)
        client = keystone_client
        for resp in (client.simulate_get('/v3/messages', headers=ADMIN | {
                         'OpenStack-API-Version': 'volume 3.2'}),
                     client.simulate_get(f'/v3/messages/{row.id}', headers=ADMIN | {
                         'OpenStack-API-Version': 'volume 3.0'})):
            assert resp.status_code == 404
            assert resp.json == {'itemNotFound': {
                'code': 404, 'message': 'The resource could not be found.'}}

    def test_another_projects_message_is_not_found(self, keystone_client, db, conf):
        row = record(db, conf, project='p2')
        resp = keystone_client.simulate_get(f'/v3/messages/{row.id}', headers=identity('reader'))
        assert resp.status_code == 404
        assert resp.json['itemNotFound']['message'] == f'Message {row.id} could not be found.'
        resp = keystone_client.simulate_delete(f'/v3/messages/{row.id}',
                                               headers=identity('member'))
        assert resp.status_code == 404
        assert live_count(db) == 1

    def test_member_deletes_reader_may_not(self, keystone_client, db, conf):
        row = record(db, conf)
        resp = keystone_client.simulate_delete(f'/v3/messages/{row.id}',
                                               headers=identity('reader'))
        assert resp.status_code == 403
        assert live_count(db) == 1
        resp = keystone_client.simulate_delete(f'/v3/messages/{row.id}',
                                               headers=identity('member'))
        assert resp.status_code == 204
        assert live_count(db) == 0
        resp = keystone_client.simulate_get(f'/v3/messages/{row.id}', headers=identity('reader'))
        assert resp.status_code == 404

    def test_admin_sees_and_deletes_any_project(self, keystone_client, db, conf):
        row = record(db, conf, project='p2')
        resp = keystone_client.simulate_get(f'/v3/messages/{row.id}', headers=ADMIN)
        assert resp.status_code == 200
        resp = keystone_client.simulate_delete(f'/v3/messages/{row.id}', headers=ADMIN)
        assert resp.status_code == 204

    def test_unknown_id(self, keystone_client):
        resp = keystone_client.simulate_delete('/v3/messages/nope', headers=ADMIN)
        assert (resp.status_code, resp.json['itemNotFound']['message']) == (
            404, 'Message nope could not be found.')


class TestList:
    @pytest.fixture
    def three(self, db, conf):
        rows = [record(db, conf, resource_uuid=f'vol-{i}') for i in range(3)]
        record(db, conf, project='p2')
        return rows

    def _list(self, keystone_client, params=None, headers=None):
        return keystone_client.simulate_get('/v3/messages', params=params,
                                            headers=headers or identity('reader'))

    def test_list_is_the_projects_newest_first(self, keystone_client, three):
        resp = self._list(keystone_client)
        assert resp.status_code == 200
        assert [m['id'] for m in resp.json['messages']] == [r.id for r in reversed(three)]
        assert 'messages_links' not in resp.json

    def test_admin_lists_every_project(self, keystone_client, three):
        assert len(self._list(keystone_client, headers=ADMIN).json['messages']) == 4

    def test_limit_marker_and_next_link(self, keystone_client, three):
        first = self._list(keystone_client, {'limit': 2, 'sort': 'created_at:asc'}).json
        assert [m['id'] for m in first['messages']] == [three[0].id, three[1].id]
        href = first['messages_links'][0]['href']
        assert f'marker={three[1].id}' in href and '/v3/p1/messages?' in href
        rest = self._list(keystone_client, {'limit': 2, 'sort': 'created_at:asc',
                                            'marker': three[1].id}).json
        assert [m['id'] for m in rest['messages']] == [three[2].id]

    def test_offset_and_filters(self, keystone_client, three):
        assert len(self._list(keystone_client, {'offset': 2}).json['messages']) == 1
        found = self._list(keystone_client, {'resource_uuid': 'vol-1'}).json['messages']
        assert [m['resource_uuid'] for m in found] == ['vol-1']

    def test_before_3_5_paging_parameters_are_ignored(self, keystone_client, three):
        resp = self._list(keystone_client, {'limit': 1, 'bogus': 'x'},
                          headers=identity('reader', version=V33))
        assert len(resp.json['messages']) == 3

    @pytest.mark.parametrize('params, code, message', [
        ({'limit': 'x'}, 400, 'limit param must be an integer'),
        ({'limit': -1}, 400, 'limit param must be positive'),
        ({'offset': 'x'}, 400, 'Invalid input received: offset must be an integer.'),
        ({'sort': 'created_at:sideways'}, 400,
         "Invalid input received: Unknown sort direction, must be 'desc' or 'asc'"),
        ({'sort': 'nosuchkey'}, 400, 'Invalid input received: Invalid sort key: nosuchkey'),
        ({'sort': 'id', 'sort_key': 'id'}, 400,
         "The 'sort_key' and 'sort_dir' parameters are deprecated and cannot be used with "
         "the 'sort' parameter."),
        ({'marker': 'nope'}, 404, 'Message nope could not be found.'),
    ])
    def test_bad_parameters(self, keystone_client, three, params, code, message):
        resp = self._list(keystone_client, params)
        assert resp.status_code == code
        assert next(iter(resp.json.values()))['message'] == message

    def test_from_3_31_non_admins_filter_only_on_allowed_keys(self, keystone_client, three):
        resp = self._list(keystone_client, {'project_id': 'p2'},
                          headers=identity('reader', version=V331))
        assert resp.status_code == 400
        assert resp.json['badRequest']['message'] == (
            'Invalid filters project_id are found in query options.')
        resp = self._list(keystone_client, {'event_id': 'VOLUME_VOLUME_001_003'},
                          headers=identity('reader', version=V331))
        assert len(resp.json['messages']) == 3

    def test_admin_filter_on_other_columns(self, keystone_client, three):
        headers = dict(ADMIN, **V331)
        resp = self._list(keystone_client, {'project_id': 'p2'}, headers=headers)
        assert len(resp.json['messages']) == 1
        resp = self._list(keystone_client, {'no_such_column': 'x'}, headers=headers)
        assert resp.json == {'messages': []}

    def test_reader_role_is_needed(self, keystone_client, three):
        resp = self._list(keystone_client, headers=identity('observer'))
        assert resp.status_code == 403
        assert resp.json['forbidden']['message'] == (
            "Policy doesn't allow message:get_all to be performed.")
