"""Quota reservations racing on real PostgreSQL and MariaDB.

Many threads, each with its own connection, reserve against one limit at once (usage rows
not yet created, then existing): the limit is never passed, no duplicate usage row appears,
and in_use ends equal to what was committed.
"""

import concurrent.futures
import threading

import pytest
import sqlalchemy as sa

from cinderlike import conf as cl_conf
from cinderlike import exception, quota
from cinderlike.db import quotas as db_quotas
from cinderlike.db.models import QuotaUsage, Reservation

THREADS = 12
ATTEMPTS = 4
LIMIT = 17



@pytest.fixture
def conf():
    config = cl_conf.new_conf()
    config([])
    return config


def _race(db, conf, project_id, commit_every_other=True):
    """THREADS threads × ATTEMPTS reservations of volumes=1, gigabytes=2; returns committed."""
    start = threading.Barrier(THREADS)
    committed = []

    def worker(index):
        start.wait()
        mine = 0
        for attempt in range(ATTEMPTS):
            try:
                ids = quota.reserve(db, None, conf=conf, project_id=project_id,
                                    deltas={'volumes': 1, 'gigabytes': 2})
            except exception.VolumeLimitExceeded:
                continue
            if commit_every_other and (index + attempt) % 2:
                quota.rollback(db, None, ids)
            else:
                quota.commit(db, None, ids)
                mine += 1
        committed.append(mine)

    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        for future in [pool.submit(worker, i) for i in range(THREADS)]:
            future.result()
    return sum(committed)


def _usage_rows(db, project_id):
    with db.reader() as s:
        return s.execute(sa.select(QuotaUsage.resource, QuotaUsage.in_use, QuotaUsage.reserved)
                         .where(QuotaUsage.project_id == project_id)
                         .order_by(QuotaUsage.resource)).all()


def test_racing_reservations_never_pass_the_limit(db, conf):
    db_quotas.set_project_limits(db, project_id='p', limits={'volumes': LIMIT})
    committed = _race(db, conf, 'p', commit_every_other=False)
    assert committed == LIMIT
    assert _usage_rows(db, 'p') == [('gigabytes', 2 * LIMIT, 0), ('volumes', LIMIT, 0)]


def test_usage_equals_the_sum_of_commits_with_rollbacks_mixed_in(db, conf):
    db_quotas.set_project_limits(db, project_id='q', limits={'volumes': 1000})
    committed = _race(db, conf, 'q')
    assert committed == THREADS * ATTEMPTS // 2
    assert _usage_rows(db, 'q') == [('gigabytes', 2 * committed, 0),
                                    ('volumes', committed, 0)]
    with db.reader() as s:
        assert s.scalar(sa.select(sa.func.count()).select_from(Reservation).where(
            Reservation.deleted.is_(False))) == 0


def test_releases_racing_reservations_keep_usage_exact(db, conf):
    db_quotas.set_project_limits(db, project_id='r', limits={'volumes': 6})
    quota.commit(db, None, quota.reserve(db, None, conf=conf, project_id='r',
                                         deltas={'volumes': 6}))
    start = threading.Barrier(12)

    def release():
        start.wait()
        quota.release_usage(db, project_id='r', deltas={'volumes': -1})

    def take():
        start.wait()
        try:
            quota.commit(db, None, quota.reserve(db, None, conf=conf, project_id='r',
                                                 deltas={'volumes': 1}))
            return 1
        except exception.VolumeLimitExceeded:
            return 0

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        takes = [pool.submit(take) for _ in range(6)]
        for future in [pool.submit(release) for _ in range(6)]:
            future.result()
        taken = sum(f.result() for f in takes)
    assert _usage_rows(db, 'r') == [('volumes', taken, 0)]
    assert taken <= 6


def test_expired_reservations_roll_back_on_the_real_database(db, conf):
    conf.set_override('reservation_expire', -1)
    quota.reserve(db, None, conf=conf, project_id='e', deltas={'volumes': 2, 'gigabytes': 9})
    conf.set_override('reservation_expire', 3600)
    kept = quota.reserve(db, None, conf=conf, project_id='e', deltas={'volumes': 1})
    assert quota.expire_reservations(db) == 2
    assert _usage_rows(db, 'e') == [('gigabytes', 0, 0), ('volumes', 0, 1)]
    quota.commit(db, None, kept)
    assert _usage_rows(db, 'e') == [('gigabytes', 0, 0), ('volumes', 1, 0)]
