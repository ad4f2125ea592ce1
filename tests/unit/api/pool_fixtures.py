"""Helpers of the pools and capabilities API tests: RPC clients that record each call and
answer it as the scheduler or a volume service would."""

import dataclasses

import pytest
from falcon import testing

from cinderlike.api.app import create_app


class Answering:
    """Stands in for one rpcapi client: records (method, kwargs) and returns a set answer,
    or raises *error* when one is set."""

    def __init__(self, answer):
        self.answer = answer
        self.error = None
        self.calls = []

    def __getattr__(self, method):
        def call(ctx, **kwargs):
            self.calls.append((method, kwargs))
            if self.error is not None:
                raise self.error
            return self.answer
        return call


@dataclasses.dataclass
class AnsweringRPC:
    scheduler: Answering = dataclasses.field(default_factory=lambda: Answering([]))
    volume: Answering = dataclasses.field(default_factory=lambda: Answering({}))


@pytest.fixture
def answering():
    return AnsweringRPC()


@pytest.fixture
def pclient(conf, db, answering):
    """noauth client (admin) on an app whose calls land in *answering*."""
    return testing.TestClient(create_app(conf, db=db, rpc=answering))


@pytest.fixture
def pkclient(conf, db, answering):
    """keystone-headers client on the same app, for non-admin callers."""
    conf.set_override('auth_strategy', 'keystone')
    return testing.TestClient(create_app(conf, db=db, rpc=answering, use_auth_token=False))
