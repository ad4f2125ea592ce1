"""An attachment's connect whose volume service is killed (kill -9) in the middle: the restart
settles it `error_attaching` with a user message, the API's call times out into Cinder's
broker 503 and hands the attachment nobody learned of to the sweep, which deletes it; the
volume ends `available`, no workers row is left, and a new attachment connects. The four
daemons as processes on RabbitMQ and PostgreSQL, then MariaDB."""

import threading

import pytest
import sqlalchemy as sa

from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit]

V = f'/v3/{PROJECT}'
VERSION = '3.54'
CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.1993-08.org.debian:01:e2e',
             'ip': '127.0.0.1', 'platform': 'x86_64', 'os_type': 'linux2',
             'multipath': False}
RPC_TIMEOUT = 20
SWEEP_AFTER = 5
ATTACH_ERROR = 'VOLUME_VOLUME_004_021'


def _configure(stack):
    stack.update_config(rpc_response_timeout=RPC_TIMEOUT, lost_operation_timeout=SWEEP_AFTER,
                        lost_operation_interval=1)
    # NOTE(latency): the connect stays in the driver long enough to be killed there.
    stack.update_config('b1', fake_latency='initialize_connection:120')


@pytest.fixture(params=[pytest.param('postgresql', marks=pytest.mark.postgresql),
                        pytest.param('mysql', marks=pytest.mark.mysql)])
def stack(request, tmp_path, rabbit_url):
    with deployed(tmp_path, server_url=request.getfixturevalue(f'{request.param}_server_url'),
                  transport_url=rabbit_url, backends=('b1',), configure=_configure,
                  timeout=90) as stack:
        yield stack


def _rows(stack, sql, **params):
    engine = sa.create_engine(stack.db_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql), params)]
    finally:
        engine.dispose()


def _attachments(stack, volume_id):
    return _rows(stack, 'SELECT id, attach_status FROM volume_attachment '
                        'WHERE volume_id = :v AND deleted = :no', v=volume_id, no=False)


def _volume(stack, volume_id):
    return stack.ok('GET', f'{V}/volumes/{volume_id}', expect=200)['volume']


def test_kill_9_mid_connect_settles_the_attachment(stack):
    volume = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1}}, expect=202)['volume']
    wait_for(lambda: _volume(stack, volume['id'])['status'] == 'available', timeout=60,
             what='the volume to be available')

    answers = []
    create = threading.Thread(target=lambda: answers.append(stack.request(
        'POST', f'{V}/attachments', {'attachment': {
            'volume_uuid': volume['id'], 'connector': CONNECTOR, 'mode': 'rw'}},
        version=VERSION)))
    create.start()
    wait_for(lambda: [s for _i, s in _attachments(stack, volume['id'])] == ['attaching'],
             timeout=60, what='the connect to reach the driver')
    ((attachment_id, _status),) = _attachments(stack, volume['id'])
    stack.daemons['volume'].kill_group()
    stack.update_config('b1', fake_latency='')
    stack.start('volume')

    # The restart settles its own connect; the API's call then times out (503) and hands
    # the attachment, which its caller never learned of, to the sweep.
    create.join(timeout=RPC_TIMEOUT + 60)
    assert [status for status, _body in answers] == [503], answers
    wait_for(lambda: _attachments(stack, volume['id']) == [], timeout=120,
             what='the interrupted attachment to be swept')
    shown = _volume(stack, volume['id'])
    assert (shown['status'], shown['attachments']) == ('available', [])
    assert _rows(stack, 'SELECT resource_type, status FROM workers') == []
    events = {(m['resource_uuid'], m['event_id']) for m in stack.ok(
        'GET', f'{V}/messages', expect=200, version='3.3')['messages']}
    assert (volume['id'], ATTACH_ERROR) in events
    ((deleted,),) = _rows(stack, 'SELECT deleted FROM volume_attachment WHERE id = :a',
                          a=attachment_id)
    assert deleted

    # The volume takes a new attachment, connected at once, and lets it go.
    made = stack.ok('POST', f'{V}/attachments', {'attachment': {
        'volume_uuid': volume['id'], 'connector': CONNECTOR, 'mode': 'rw'}}, expect=200,
        version=VERSION)['attachment']
    assert made['connection_info']['driver_volume_type'] == 'fake'
    stack.ok('DELETE', f'{V}/attachments/{made["id"]}', expect=200, version=VERSION)
    assert _volume(stack, volume['id'])['status'] == 'available'
    stack.ok('DELETE', f'{V}/volumes/{volume["id"]}', expect=202)
