"""The Keystone harness itself: on MariaDB as on SQLite, and a Keystone that cannot start is an
error of the run (never a skip)."""

import pytest

from tests.fixtures import keystone as keystone_fixture
from tests.fixtures.database import fresh_database


@pytest.mark.mysql
def test_keystone_on_mariadb_issues_tokens_for_the_test_users(tmp_path, mysql_server_url):
    with fresh_database(mysql_server_url) as db_url, keystone_fixture.running(
            tmp_path, api_url='http://127.0.0.1:8776', db_url=db_url) as keystone:
        reader = keystone.users['reader']
        sess = keystone.session(reader)
        assert sess.get_project_id() == reader.project_id
        assert sess.get_endpoint(service_type='volumev3', interface='internal') == (
            f'http://127.0.0.1:8776/v3/{reader.project_id}')
        # what auth_token does: the service user validates the reader's token
        service = keystone.session(keystone.service_user)
        token = service.get(f'{keystone.auth_url}/auth/tokens',
                            headers={'X-Subject-Token': sess.get_token()}).json()['token']
        assert (token['project']['id'], token['user']['name']) == (reader.project_id,
                                                                     'cl-reader')
        assert {r['name'] for r in token['roles']} == {'reader'}


def test_a_keystone_that_cannot_start_fails_the_run(tmp_path):
    unwritable = f'sqlite:///{tmp_path}/no-such-dir/keystone.db'
    with pytest.raises(AssertionError, match='keystone-manage db_sync failed'):
        with keystone_fixture.running(tmp_path, api_url='http://127.0.0.1:8776',
                                      db_url=unwritable):
            pass
