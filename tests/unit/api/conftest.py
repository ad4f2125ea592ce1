"""Fixtures for API unit tests: the real app on an in-memory SQLite database."""

import datetime

import pytest
import sqlalchemy as sa
from falcon import testing

from cinderlike import conf as cl_conf
from cinderlike.api.app import create_app
from cinderlike.conf import api as api_conf
from cinderlike.db import services as db_services
from cinderlike.db.models import Service, utcnow

ADMIN = {'X-Auth-Token': 'admin:admin'}


@pytest.fixture
def conf():
    config = cl_conf.new_conf()
    config([])
    config.set_override('auth_strategy', 'noauth')
    config.set_override('project_id_regex', api_conf.ANY_PROJECT_ID_REGEX)
    return config


@pytest.fixture
def client(conf, db):
    """A noauth client: every `X-Auth-Token: user:project` caller is an admin."""
    return testing.TestClient(create_app(conf, db=db))


@pytest.fixture
def keystone_client(conf, db):
    """auth_strategy=keystone with the identity headers taken as auth_token would set them."""
    conf.set_override('auth_strategy', 'keystone')
    return testing.TestClient(create_app(conf, db=db, use_auth_token=False))


def add_service(db, *, host, binary='cinder-volume', zone='nova', cluster=None,
                disabled=False, reason=None, heartbeat_age=0) -> Service:
    """A service row whose last heartbeat was *heartbeat_age* seconds ago."""
    row = db_services.register(db, host=host, binary=binary, topic=binary,
                               availability_zone=zone, cluster_name=cluster)
    beat = utcnow() - datetime.timedelta(seconds=heartbeat_age)
    with db.writer() as session:
        session.execute(sa.update(Service).where(Service.id == row.id).values(
            created_at=beat, updated_at=beat, disabled=disabled, disabled_reason=reason))
    return db_services.get(db, row.id)


# Volume API fixtures (a recording RPC client and apps using it), pools/capabilities
# fixtures (RPC clients that answer calls), attachment fixtures (calls reach a manager) and
# backup fixtures (a live backup service, calls answered).
from tests.unit.api.attachment_fixtures import aclient, akclient, manager, mrpc  # noqa: E402,F401
from tests.unit.api.backup_fixtures import bclient, bkclient, brpc  # noqa: E402,F401
from tests.unit.api.pool_fixtures import answering, pclient, pkclient  # noqa: E402,F401
from tests.unit.api.volume_fixtures import kclient, rpc, seeded, vclient  # noqa: E402,F401
