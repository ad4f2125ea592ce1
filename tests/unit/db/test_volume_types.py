"""db/volume_types lookups the volumes API relies on: visibility, name-or-id, defaults."""

import pytest

from cinderlike import exception
from cinderlike.db import default_types as db_default_types
from cinderlike.db import type_access as db_type_access
from cinderlike.db import volume_types as db_types

UUID_NAME = '0b9ab1c4-6a9e-4b8e-9a4e-3c2f1e0d9c8b'


@pytest.fixture
def types(db):
    default = db_types.create(db, name=db_types.DEFAULT_VOLUME_TYPE)
    private = db_types.create(db, name='private', is_public=False, extra_specs={'a': 'b'})
    db_type_access.add(db, type_id=private.id, project_id='p1')
    return default, private


def test_private_type_visible_to_admins_and_granted_projects(db, types):
    _default, private = types
    for project, is_admin in (('p1', False), ('p2', True)):
        assert db_types.get(db, type_id=private.id, project_id=project,
                            is_admin=is_admin).id == private.id
    with pytest.raises(exception.VolumeTypeNotFound) as err:
        db_types.get(db, type_id=private.id, project_id='p2', is_admin=False)
    assert err.value.msg == f'Volume type {private.id} could not be found.'


def test_by_name_or_id(db, types):
    _default, private = types
    lookup = lambda value, project='p1', is_admin=False: db_types.get_by_name_or_id(  # noqa: E731
        db, ctx_project_id=project, is_admin=is_admin, name_or_id=value)
    assert lookup(private.id).name == 'private'
    assert lookup('private').id == private.id
    with pytest.raises(exception.VolumeTypeNotFoundByName) as err:
        lookup('private', project='p2')
    assert err.value.msg == 'Volume type with name private could not be found.'
    # A name that looks like a UUID is found by name after the id lookup misses.
    named = db_types.create(db, name=UUID_NAME)
    assert lookup(UUID_NAME).id == named.id
    missing = '0b9ab1c4-6a9e-4b8e-9a4e-000000000000'
    with pytest.raises(exception.VolumeTypeNotFound) as err:
        lookup(missing)
    assert err.value.msg == f'Volume type {missing} could not be found.'


def test_extra_specs(db, types):
    _default, private = types
    assert db_types.get_extra_specs(db, type_id=private.id) == {'a': 'b'}
    assert db_types.get_extra_specs(db, type_id='nope') == {}


def test_default_for_project(db, types):
    default, private = types
    resolve = lambda project, name=db_types.DEFAULT_VOLUME_TYPE: (  # noqa: E731
        db_types.get_default_for_project(db, project_id=project, conf_default_name=name))
    assert resolve('p1').id == default.id
    db_default_types.set_default(db, project_id='p1', type_id=private.id)
    assert resolve('p1').id == private.id
    assert resolve('p1', name='missing').id == private.id
    with pytest.raises(exception.VolumeTypeDefaultMisconfiguredError) as err:
        resolve('p2', name='missing')
    assert err.value.code == 500
    assert err.value.msg == ('The request cannot be fulfilled as the default volume type '
                             'missing cannot be found.')


def test_deleted_types_are_gone_and_their_name_is_free(db, types):
    _default, private = types
    db_types.destroy(db, type_id=private.id, conf_default_name=db_types.DEFAULT_VOLUME_TYPE)
    with pytest.raises(exception.VolumeTypeNotFound):
        db_types.get(db, type_id=private.id)
    assert db_type_access.get_projects(db, type_id=private.id) == []
    assert db_types.create(db, name='private').id != private.id



def test_the_configured_default_cannot_be_deleted(db):
    only = db_types.create(db, name='only')
    with pytest.raises(exception.VolumeTypeDefaultDeletionError) as err:
        db_types.destroy(db, type_id=only.id, conf_default_name='only')
    assert err.value.msg == (f'The volume type {only.id} is a default volume type and cannot '
                             'be deleted.')
