"""The CLIs as a user of them runs them: OS_* variables for password auth, from the venv."""

import os
import pathlib
import shutil
import sys

from tests.fixtures import keystone as keystone_fixture


def os_env(keystone, user) -> dict[str, str]:
    """The OS_* variables *user* of the CLIs exports (password auth, no endpoint given)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith('OS_')}
    env.update(OS_AUTH_URL=keystone.auth_url, OS_AUTH_TYPE='password',
               OS_IDENTITY_API_VERSION='3', OS_USERNAME=user.name,
               OS_PASSWORD=user.password, OS_PROJECT_NAME=user.project_name,
               OS_USER_DOMAIN_NAME=keystone_fixture.DOMAIN,
               OS_PROJECT_DOMAIN_NAME=keystone_fixture.DOMAIN,
               OS_REGION_NAME=keystone_fixture.REGION)
    return env


def cli_path(name) -> str:
    """A CLI of the test extra: missing means a broken install, not a skip."""
    path = shutil.which(name, path=str(pathlib.Path(sys.executable).parent))
    assert path is not None, f'{name} CLI not found: pip install -e .[test]'
    return path
