"""QoS specs through every real client against the four daemons: python-cinderclient (library
and `cinder` CLI), openstacksdk's block-storage QoS proxy and `openstack volume qos`.

The `cinder` CLI runs with cinderclient's own noauth plugin (`--os-auth-type noauth`), which
sends `user:project` as the token and appends the project to the endpoint.
"""

import pathlib
import shutil
import subprocess
import sys

import pytest
from cinderclient import exceptions as cinder_exceptions
from openstack import exceptions as sdk_exceptions

from tests.functional.clients.test_cinderclient import cinder  # noqa: F401 - fixture
from tests.functional.clients.test_openstack_cli import (
    _json,
    cli,  # noqa: F401 - fixture
)
from tests.functional.clients.test_openstacksdk import bs  # noqa: F401 - fixture
from tests.functional.e2e.stack import PROJECT

pytestmark = [pytest.mark.rabbit, pytest.mark.postgresql]

CINDER = shutil.which('cinder', path=str(pathlib.Path(sys.executable).parent))


def _qos_of_type(stack, type_id):
    status, body = stack.request('GET', f'/v3/{PROJECT}/types/{type_id}')
    assert status == 200
    return body['volume_type']['qos_specs_id']


def test_cinderclient_library(cinder, stack, name):  # noqa: F811
    vtype = cinder.volume_types.create(name)
    qos = cinder.qos_specs.create(name, {'consumer': 'front-end', 'total_iops_sec': '500'})
    assert (qos.name, qos.consumer, qos.specs) == (name, 'front-end', {'total_iops_sec': '500'})
    assert name in [q.name for q in cinder.qos_specs.list()]
    with pytest.raises(cinder_exceptions.ClientException) as dup:
        cinder.qos_specs.create(name, {})
    assert (dup.value.code, dup.value.message) == (409, f'QoS Specs {name} already exists.')

    cinder.qos_specs.set_keys(qos.id, {'read_iops_sec': '100', 'consumer': 'both'})
    cinder.qos_specs.unset_keys(qos.id, ['total_iops_sec'])
    shown = cinder.qos_specs.get(qos.id)
    assert (shown.consumer, shown.specs) == ('both', {'read_iops_sec': '100'})

    cinder.qos_specs.associate(qos, vtype.id)
    assert cinder.volume_types.get(vtype.id).qos_specs_id == qos.id
    assert [(a.association_type, a.name, a.id) for a in
            cinder.qos_specs.get_associations(qos)] == [('volume_type', name, vtype.id)]
    other = cinder.qos_specs.create(f'{name}-other', {})
    with pytest.raises(cinder_exceptions.BadRequest) as taken:
        cinder.qos_specs.associate(other, vtype.id)
    assert 'is already associated with another qos specs' in str(taken.value)
    cinder.qos_specs.disassociate(qos, vtype.id)
    assert cinder.volume_types.get(vtype.id).qos_specs_id is None
    cinder.qos_specs.associate(qos, vtype.id)
    cinder.qos_specs.disassociate_all(qos)
    assert cinder.qos_specs.get_associations(qos) == []

    cinder.qos_specs.associate(qos, vtype.id)
    with pytest.raises(cinder_exceptions.BadRequest) as in_use:
        cinder.qos_specs.delete(qos)
    assert 'Qos specs still in use.' in str(in_use.value)
    cinder.qos_specs.delete(qos, force=True)
    with pytest.raises(cinder_exceptions.NotFound):
        cinder.qos_specs.get(qos.id)
    assert _qos_of_type(stack, vtype.id) is None
    cinder.qos_specs.delete(other)
    cinder.volume_types.delete(vtype)


@pytest.fixture(scope='module')
def cinder_cli(stack):
    # python-cinderclient is in the test extra: missing means a broken install, not a skip.
    assert CINDER is not None, 'cinder CLI not found: pip install -e .[test]'

    def run(*args):
        command = [CINDER, '--os-auth-type', 'noauth', '--os-user-id', 'admin',
                   '--os-project-id', PROJECT, '--os-volume-api-version', '3.71',
                   '--os-endpoint', f'http://127.0.0.1:{stack.api_port}/v3', *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f'{args}: {done.stderr}'
        return done.stdout
    return run


def _table(text) -> dict:
    """The Property | Value table of a `cinder` show command."""
    cells = [line.split('|')[1:3] for line in text.splitlines() if line.startswith('|')]
    return {key.strip(): value.strip() for key, value in cells[1:] if key.strip()}


def test_cinder_cli(cinder_cli, cinder, stack, name):  # noqa: F811
    vtype = cinder.volume_types.create(name)
    created = _table(cinder_cli('qos-create', name, 'consumer=back-end', 'maxIOPS=10'))
    qos_id = created['id']
    assert (created['name'], created['consumer'], created['specs']) == (
        name, 'back-end', 'maxIOPS : 10')
    assert qos_id in cinder_cli('qos-list')
    cinder_cli('qos-key', qos_id, 'set', 'minIOPS=5')
    cinder_cli('qos-key', qos_id, 'unset', 'maxIOPS')
    assert _table(cinder_cli('qos-show', qos_id))['specs'] == 'minIOPS : 5'
    cinder_cli('qos-associate', qos_id, vtype.id)
    assert vtype.id in cinder_cli('qos-get-association', qos_id)
    assert _qos_of_type(stack, vtype.id) == qos_id
    cinder_cli('qos-disassociate', qos_id, vtype.id)
    assert _qos_of_type(stack, vtype.id) is None
    cinder_cli('qos-associate', qos_id, vtype.id)
    cinder_cli('qos-disassociate-all', qos_id)
    assert vtype.id not in cinder_cli('qos-get-association', qos_id)
    cinder_cli('qos-associate', qos_id, vtype.id)
    cinder_cli('qos-delete', '--force', 'True', qos_id)
    assert qos_id not in cinder_cli('qos-list')
    assert _qos_of_type(stack, vtype.id) is None
    cinder.volume_types.delete(vtype)


def test_openstacksdk(bs, stack, name):  # noqa: F811
    vtype = bs.create_type(name=name)
    qos = bs.create_qos_spec(name=name, consumer='front-end', total_iops_sec='500')
    assert (qos.name, qos.consumer, qos.specs) == (name, 'front-end', {'total_iops_sec': '500'})
    assert bs.find_qos_spec(name).id == qos.id
    assert qos.id in [q.id for q in bs.qos_specs()]
    bs.update_qos_spec(qos, read_iops_sec='100')
    bs.delete_qos_spec_metadata(qos, ['total_iops_sec'])
    assert bs.get_qos_spec(qos.id).specs == {'read_iops_sec': '100'}

    bs.associate_qos_spec(qos, vtype.id)
    assert [(a.association_type, a.name, a.id) for a in bs.qos_spec_associations(qos)] == [
        ('volume_type', name, vtype.id)]
    bs.disassociate_qos_spec(qos, vtype.id)
    assert list(bs.qos_spec_associations(qos)) == []
    bs.associate_qos_spec(qos, vtype.id)
    bs.disassociate_all_qos_spec(qos)
    assert _qos_of_type(stack, vtype.id) is None

    bs.associate_qos_spec(qos, vtype.id)
    with pytest.raises(sdk_exceptions.BadRequestException):
        bs.delete_qos_spec(qos)
    bs.delete_qos_spec(qos, force=True)
    with pytest.raises(sdk_exceptions.NotFoundException):
        bs.get_qos_spec(qos.id)
    assert _qos_of_type(stack, vtype.id) is None
    bs.delete_type(vtype)


def test_openstack_cli(cli, stack, name):  # noqa: F811
    type_id = _json(cli, 'volume', 'type', 'create', name)['id']
    created = _json(cli, 'volume', 'qos', 'create', '--consumer', 'front-end',
                    '--property', 'total_iops_sec=500', name)
    assert (created['name'], created['consumer'], created['properties']) == (
        name, 'front-end', {'total_iops_sec': '500'})
    cli('volume', 'qos', 'set', '--property', 'read_iops_sec=100', name)
    cli('volume', 'qos', 'unset', '--property', 'total_iops_sec', name)
    cli('volume', 'qos', 'associate', name, name)
    shown = _json(cli, 'volume', 'qos', 'show', name)
    assert (shown['properties'], shown['associations']) == ({'read_iops_sec': '100'}, [name])
    listed = {q['Name']: q for q in _json(cli, 'volume', 'qos', 'list')}
    assert listed[name]['Associations'] == [name]
    assert _qos_of_type(stack, type_id) == created['id']
    cli('volume', 'qos', 'disassociate', '--volume-type', name, name)
    assert _qos_of_type(stack, type_id) is None
    cli('volume', 'qos', 'associate', name, name)
    cli('volume', 'qos', 'disassociate', '--all', name)
    assert 'associations' not in _json(cli, 'volume', 'qos', 'show', name)

    cli('volume', 'qos', 'associate', name, name)
    refused = cli('volume', 'qos', 'delete', name, check=False)
    assert refused.returncode != 0 and 'Qos specs still in use.' in refused.stderr
    cli('volume', 'qos', 'delete', '--force', name)
    assert name not in {q['Name'] for q in _json(cli, 'volume', 'qos', 'list')}
    assert _qos_of_type(stack, type_id) is None
    cli('volume', 'type', 'delete', name)
