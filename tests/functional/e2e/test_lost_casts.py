"""Lost casts end to end: with the scheduler gone, a create and an extend the API accepted
reach no service; the volume service's sweep ends them (`error`, `error_extending`) after
lost_operation_timeout with a user message each, their quota right and no workers row left.
A scheduler started again finds their stale messages and changes nothing. The four daemons
as processes on RabbitMQ and PostgreSQL, then MariaDB."""

import pytest
import sqlalchemy as sa

from tests.functional.e2e.stack import PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit]

V = f'/v3/{PROJECT}'
# Longer than a scheduler started again takes to place a volume (its start-up and
# scheduler_driver_init_wait_time), so what it does place is not swept.
TIMEOUT = 20


def _configure(stack):
    stack.update_config(lost_operation_timeout=TIMEOUT, lost_operation_interval=1)


@pytest.fixture(params=[pytest.param('postgresql', marks=pytest.mark.postgresql),
                        pytest.param('mysql', marks=pytest.mark.mysql)])
def stack(request, tmp_path, rabbit_url):
    with deployed(tmp_path, server_url=request.getfixturevalue(f'{request.param}_server_url'),
                  transport_url=rabbit_url, backends=('b1',), configure=_configure,
                  timeout=90) as stack:
        yield stack


def _status(stack, volume_id):
    return stack.ok('GET', f'{V}/volumes/{volume_id}', expect=200)['volume']['status']


def _settles(stack, volume_id, wanted, timeout=120):
    wait_for(lambda: _status(stack, volume_id) not in ('creating', 'extending'),
             timeout=timeout, what=f'volume {volume_id} to settle')
    assert _status(stack, volume_id) == wanted


def _workers(stack) -> int:
    engine = sa.create_engine(stack.db_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text('SELECT count(*) FROM workers')).scalar()
    finally:
        engine.dispose()


def test_what_the_dead_scheduler_never_got_ends_with_a_message(stack):
    kept = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1}}, expect=202)['volume']
    _settles(stack, kept['id'], 'available')
    assert stack.daemons['scheduler'].stop() == 0

    lost = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1}}, expect=202)['volume']
    stack.ok('POST', f'{V}/volumes/{kept["id"]}/action', {'os-extend': {'new_size': 2}},
             expect=202)
    _settles(stack, lost['id'], 'error')
    _settles(stack, kept['id'], 'error_extending')

    events = {(m['resource_uuid'], m['event_id']) for m in stack.ok(
        'GET', f'{V}/messages', expect=200, version='3.3')['messages']}
    assert {(lost['id'], 'VOLUME_VOLUME_001_001'),
            (kept['id'], 'VOLUME_VOLUME_007_001')} <= events
    usage = stack.ok('GET', f'{V}/os-quota-sets/{PROJECT}?usage=True',
                     expect=200)['quota_set']
    # NOTE(quota): as Cinder, an error volume keeps its quota until it is deleted; the
    # failed extend's reservation is rolled back.
    assert (usage['gigabytes']['in_use'], usage['gigabytes']['reserved']) == (2, 0)
    assert (usage['volumes']['in_use'], usage['volumes']['reserved']) == (2, 0)
    assert _workers(stack) == 0

    # A scheduler again: the stale create and extend change nothing, new work is served.
    stack.start('scheduler')
    fresh = stack.ok('POST', f'{V}/volumes', {'volume': {'size': 1}}, expect=202)['volume']
    _settles(stack, fresh['id'], 'available')
    assert (_status(stack, lost['id']), _status(stack, kept['id'])) == (
        'error', 'error_extending')
    for volume in (lost, kept, fresh):
        stack.ok('DELETE', f'{V}/volumes/{volume["id"]}', expect=202)
    wait_for(lambda: not stack.ok('GET', f'{V}/volumes', expect=200)['volumes'], timeout=60,
             what='the volumes to be deleted')
    assert _workers(stack) == 0
