"""POST /volumes: the detail answer, the scheduler cast, and every refused input.

A refused request writes no volume row and leaves no quota reserved or used.
"""

import pytest
import sqlalchemy as sa

from cinderlike.db import volume_types as db_types
from cinderlike.db.models import Worker
from tests.unit.api.volume_fixtures import (
    add_volume,
    commits,
    fault,
    post,
    usages,
    user,
    volume_rows,
)


def _workers(db) -> list[Worker]:
    with db.reader() as s:
        return list(s.scalars(sa.select(Worker)))


def test_create_answers_202_creating_and_casts_to_the_scheduler(vclient, db, rpc):
    resp = post(vclient, {'volume': {'size': '2', 'name': 'v1', 'metadata': {'k': 'v'}}})
    assert resp.status_code == 202
    shown = resp.json['volume']
    assert (shown['status'], shown['size'], shown['name'], shown['volume_type']) == (
        'creating', 2, 'v1', '__DEFAULT__')
    assert shown['metadata'] == {'k': 'v'}
    assert shown['bootable'] == 'false'
    assert shown['availability_zone'] == 'nova'
    assert shown['links'][0]['href'].endswith(f'/v3/admin/volumes/{shown["id"]}')
    (method, kwargs), = rpc.scheduler.calls
    assert method == 'create_volume' and kwargs['volume_id'] == shown['id']
    spec = kwargs['request_spec']
    assert spec['volume_type']['name'] == '__DEFAULT__'
    assert spec['volume_properties']['size'] == 2
    row, = volume_rows(db)
    assert (row.status, row.host) == ('creating', None)
    assert usages(db)['volumes'] == (1, 0) and usages(db)['gigabytes'] == (2, 0)


def test_a_create_whose_usage_rows_exist_is_one_transaction(vclient, db, rpc):
    assert post(vclient, {'volume': {'size': 1}}).status_code == 202
    committed = commits(db)
    resp = post(vclient, {'volume': {'size': 2, 'name': 'second'}})
    assert resp.status_code == 202 and len(committed) == 1
    assert len(volume_rows(db)) == 2 and len(_workers(db)) == 2
    assert usages(db)['volumes'] == (2, 0) and usages(db)['gigabytes'] == (3, 0)
    assert rpc.scheduler.calls[-1][1]['volume_id'] == resp.json['volume']['id']


def test_a_projects_first_create_is_rolled_back_and_made_in_two_steps(vclient, db, rpc):
    # No usage row exists yet: the single transaction's UPDATE takes none, and the
    # two-step flow creates them and the volume, nothing of the first attempt left.
    resp = post(vclient, {'volume': {'size': 2}})
    assert resp.status_code == 202
    assert [row.id for row in volume_rows(db)] == [resp.json['volume']['id']]
    assert len(_workers(db)) == 1 and len(rpc.scheduler.calls) == 1
    assert usages(db)['volumes'] == (1, 0) and usages(db)['gigabytes'] == (2, 0)


def test_create_with_a_named_type_reserves_per_type_quota(vclient, db, rpc):
    db_types.create(db, name='gold', extra_specs={'volume_backend_name': 'b1'})
    resp = post(vclient, {'volume': {'size': 1, 'volume_type': 'gold'}})
    assert resp.status_code == 202
    assert resp.json['volume']['volume_type'] == 'gold'
    assert usages(db)['volumes_gold'] == (1, 0)
    spec = rpc.scheduler.calls[0][1]['request_spec']
    assert spec['volume_type']['extra_specs'] == {'volume_backend_name': 'b1'}


def test_clone_takes_source_size_type_and_zone(vclient, db):
    source = add_volume(db, size=3)
    resp = post(vclient, {'volume': {'source_volid': source.id}})
    assert resp.status_code == 202
    assert (resp.json['volume']['size'], resp.json['volume']['source_volid']) == (3, source.id)


def _size_message(value):
    return (f'Invalid input received: Invalid volume size provided for create request: {value} '
            '(size argument must be an integer (or string representation of an integer) and '
            'greater than zero).')


@pytest.mark.parametrize('body, code, message', [
    ({'volume': {'size': 0}}, 400,
     'Invalid input for field/attribute size. Value: 0. 0 is less than the minimum of 1'),
    ({'volume': {'size': -1}}, 400,
     'Invalid input for field/attribute size. Value: -1. -1 is less than the minimum of 1'),
    ({'volume': {'size': '0'}}, 400, _size_message('0')),
    ({'volume': {'size': 'abc'}}, 400,
     "Invalid input for field/attribute size. Value: abc. 'abc' does not match '^[0-9]+$'"),
    ({'volume': {}}, 400, _size_message(None)),
    ({'volume': {'size': 1, 'volume_type': 'nope'}}, 404,
     'Volume type with name nope could not be found.'),
    ({'volume': {'size': 1, 'metadata': {'k': 1}}}, 400, None),
    ({'volume': {'size': 1, 'metadata': {'': 'v'}}}, 400, None),
    ({'volume': {'size': 1, 'metadata': 'x'}}, 400, None),
    ({'volume': {'size': 1, 'name': 'n' * 256}}, 400, None),
    ({'volume': {'size': 1, 'availability_zone': 'mars'}}, 400,
     "Availability zone 'mars' is invalid."),
    ({'volume': {'size': 1, 'multiattach': True}}, 400, None),
    ({'volume': {'size': 1, 'source_volid': '00000000-0000-0000-0000-000000000000'}}, 404,
     'Volume 00000000-0000-0000-0000-000000000000 could not be found.'),
    ({'size': 1}, 400, None),
])
def test_bad_input_is_refused_and_writes_nothing(vclient, db, rpc, body, code, message):
    resp = post(vclient, body)
    got_code, got_message = fault(resp)
    assert got_code == code
    if message is not None:
        assert got_message == message
    assert volume_rows(db) == []
    assert all(amounts == (0, 0) for amounts in usages(db).values())
    assert rpc.scheduler.calls == []


def test_name_over_255_names_the_field(vclient):
    message = fault(post(vclient, {'volume': {'size': 1, 'name': 'n' * 256}}))[1]
    assert message.startswith('Invalid input for field/attribute name.')


def test_unknown_property_refused_from_3_53(vclient):
    assert post(vclient, {'volume': {'size': 1, 'x': 1}}, version='3.52').status_code == 202
    assert fault(post(vclient, {'volume': {'size': 1, 'x': 1}}, version='3.53'))[0] == 400


def test_over_per_volume_size_limit_is_413(vclient, db, conf, rpc):
    conf.set_override('per_volume_size_limit', 5)
    code, message = fault(post(vclient, {'volume': {'size': 6}}))
    assert (code, message) == (413, 'VolumeSizeExceedsLimit: Requested volume size 6G is '
                                     'larger than maximum allowed limit 5G.')
    assert volume_rows(db) == [] and rpc.scheduler.calls == []


@pytest.mark.parametrize('warm', [False, True], ids=['first-use', 'usage-rows-exist'])
@pytest.mark.parametrize('option, size, name', [('quota_gigabytes', 11, 'gigabytes'),
                                                ('quota_volumes', 1, 'volumes')])
def test_over_quota_is_413_and_leaks_nothing(vclient, db, conf, option, size, name, warm):
    conf.set_override(option, 10 if option == 'quota_gigabytes' else 1)
    conf.set_override('use_default_quota_class', False)
    if name == 'volumes' or warm:
        assert post(vclient, {'volume': {'size': 1}}).status_code == 202
    before = volume_rows(db)
    resp = post(vclient, {'volume': {'size': size}})
    assert resp.status_code == 413
    assert resp.json['overLimit']['retryAfter'] == '0'
    assert len(volume_rows(db)) == len(before)
    assert all(reserved == 0 for _in_use, reserved in usages(db).values())


def test_clone_rules(vclient, db):
    source = add_volume(db, size=3)
    small = fault(post(vclient, {'volume': {'source_volid': source.id, 'size': 2}}))
    assert small[1].startswith("Invalid input received: Volume size '2'GB cannot be smaller")
    busy = add_volume(db, status='creating')
    assert fault(post(vclient, {'volume': {'source_volid': busy.id}}))[1] == (
        "Invalid volume: Originating source volume status must be one of 'available, in-use' "
        'values')
    assert len(volume_rows(db)) == 2


def test_a_reader_may_not_create(kclient, db):
    resp = post(kclient, {'volume': {'size': 1}}, headers=user(roles='reader'))
    assert fault(resp) == (403, "Policy doesn't allow volume:create to be performed.")
    assert volume_rows(db) == []
