"""quota.py on SQLite: limit resolution, reserve/commit/rollback/release/expire, Cinder's 413s."""

import datetime
import types

import pytest
import sqlalchemy as sa

from cinderlike import exception, quota
from cinderlike.db import quotas as db_quotas
from cinderlike.db.models import QuotaUsage, Reservation, Volume, VolumeType, utcnow

PROJECT = 'p1'


def add_type(db, name, type_id=None):
    with db.writer() as s:
        s.add(VolumeType(id=type_id or f'id-{name}', name=name, is_public=True, deleted=False))


def usage(db, resource, project=PROJECT):
    return db_quotas.get_usages(db, project_id=project).get(resource)


def reserve(db, conf, **deltas):
    return quota.reserve(db, None, conf=conf, project_id=PROJECT, deltas=deltas)


def live_reservations(db):
    with db.reader() as s:
        return s.scalars(sa.select(Reservation.resource).where(
            Reservation.deleted.is_(False)).order_by(Reservation.resource)).all()


class TestLimits:
    def test_resources_are_project_wide_then_per_type(self, db):
        add_type(db, 'lvm')
        assert quota.resources(db) == [
            'volumes', 'per_volume_gigabytes', 'snapshots', 'gigabytes', 'backups',
            'backup_gigabytes', 'groups', 'volumes_lvm', 'gigabytes_lvm', 'snapshots_lvm']

    def test_options_then_default_class_then_project(self, db, conf):
        add_type(db, 'lvm')
        limits = quota.project_quotas(conf, db, project_id=PROJECT)
        assert {k: v['limit'] for k, v in limits.items()} == {
            'volumes': 10, 'per_volume_gigabytes': -1, 'snapshots': 10, 'gigabytes': 1000,
            'backups': 10, 'backup_gigabytes': 1000, 'groups': 10, 'volumes_lvm': -1,
            'gigabytes_lvm': -1, 'snapshots_lvm': -1}
        db_quotas.set_class_limits(db, class_name='default', limits={'volumes': 20})
        assert quota.project_quotas(conf, db, project_id=PROJECT)['volumes'] == {'limit': 20}
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={'volumes': 3})
        assert quota.project_quotas(conf, db, project_id=PROJECT)['volumes'] == {'limit': 3}
        assert quota.project_quotas(conf, db, project_id='other')['volumes'] == {'limit': 20}

    def test_default_class_ignored_when_use_default_quota_class_is_off(self, db, conf):
        db_quotas.set_class_limits(db, class_name='default', limits={'volumes': 20})
        conf.set_override('use_default_quota_class', False)
        assert quota.defaults(conf, db)['volumes'] == 10

    def test_only_own_keeps_the_project_rows(self, db, conf):
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={'snapshots': 4})
        assert quota.project_quotas(conf, db, project_id=PROJECT, usages=True, only_own=True) \
            == {'snapshots': {'limit': 4, 'in_use': 0, 'reserved': 0}}

    def test_destroy_project_limits_falls_back_to_defaults(self, db, conf):
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={'volumes': 3})
        assert db_quotas.destroy_project_limits(db, project_id=PROJECT) == 1
        assert quota.project_quotas(conf, db, project_id=PROJECT)['volumes'] == {'limit': 10}

    def test_volume_deltas_add_per_type_keys(self):
        assert quota.volume_deltas(size=5, volume_type_name='lvm') == {
            'volumes': 1, 'volumes_lvm': 1, 'gigabytes': 5, 'gigabytes_lvm': 5}
        assert quota.volume_deltas(size=5, volume_type_name=None, snapshot=True,
                                   gigabytes=False) == {'snapshots': 1}


class TestReserve:
    def test_reserve_commit_moves_reserved_into_in_use(self, db, conf):
        ids = reserve(db, conf, volumes=1, gigabytes=5)
        assert len(ids) == 2
        assert usage(db, 'gigabytes') == {'in_use': 0, 'reserved': 5}
        quota.commit(db, None, ids)
        assert usage(db, 'gigabytes') == {'in_use': 5, 'reserved': 0}
        assert usage(db, 'volumes') == {'in_use': 1, 'reserved': 0}
        assert live_reservations(db) == []

    def test_commit_twice_applies_once(self, db, conf):
        ids = reserve(db, conf, volumes=1)
        quota.commit(db, None, ids)
        quota.commit(db, None, ids)
        quota.rollback(db, None, ids)
        assert usage(db, 'volumes') == {'in_use': 1, 'reserved': 0}

    def test_rollback_gives_reserved_back(self, db, conf):
        ids = reserve(db, conf, volumes=1, gigabytes=5)
        quota.rollback(db, None, ids)
        assert usage(db, 'gigabytes') == {'in_use': 0, 'reserved': 0}
        assert live_reservations(db) == []

    def test_over_volumes_is_volume_limit_exceeded_and_reserves_nothing(self, db, conf):
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={'volumes': 1})
        quota.commit(db, None, reserve(db, conf, volumes=1))
        with pytest.raises(exception.VolumeLimitExceeded) as caught:
            reserve(db, conf, volumes=1, gigabytes=1)
        assert caught.value.code == 413
        assert caught.value.msg == ("Maximum number of volumes allowed (1) exceeded for "
                                    "quota 'volumes'.")
        # NOTE: a first usage row is created on its own, as in Cinder; nothing is reserved.
        assert usage(db, 'gigabytes') == {'in_use': 0, 'reserved': 0}
        assert usage(db, 'volumes') == {'in_use': 1, 'reserved': 0}
        assert live_reservations(db) == []

    def test_over_gigabytes_names_requested_quota_and_consumed(self, db, conf):
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={'gigabytes': 10})
        reserve(db, conf, gigabytes=4)
        with pytest.raises(exception.VolumeSizeExceedsAvailableQuota) as caught:
            reserve(db, conf, volumes=20, gigabytes=7)
        assert caught.value.msg == (
            'Requested volume or snapshot exceeds allowed gigabytes quota. Requested 7G, '
            'quota is 10G and 4G has been consumed.')
        assert caught.value.kwargs['overs'] == ['gigabytes', 'volumes']

    def test_per_type_limit(self, db, conf):
        add_type(db, 'lvm')
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={'volumes_lvm': 0})
        with pytest.raises(exception.VolumeLimitExceeded) as caught:
            reserve(db, conf, **quota.volume_deltas(size=1, volume_type_name='lvm'))
        assert caught.value.msg == ("Maximum number of volumes allowed (0) exceeded for "
                                    "quota 'volumes_lvm'.")

    @pytest.mark.parametrize('resource, error, text', [
        ('snapshots', exception.SnapshotLimitExceeded,
         'Maximum number of snapshots allowed (0) exceeded'),
        ('backups', exception.BackupLimitExceeded,
         'Maximum number of backups allowed (0) exceeded'),
        ('groups', exception.GroupLimitExceeded,
         'Maximum number of groups allowed (0) exceeded'),
        ('backup_gigabytes', exception.VolumeBackupSizeExceedsAvailableQuota,
         'Requested backup exceeds allowed Backup gigabytes quota. Requested 1G, quota is 0G '
         'and 0G has been consumed.'),
    ])
    def test_each_resource_has_cinders_exception(self, db, conf, resource, error, text):
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={resource: 0})
        with pytest.raises(error) as caught:
            reserve(db, conf, **{resource: 1})
        assert caught.value.msg == text

    def test_unlimited_and_negative_deltas_are_never_over(self, db, conf):
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={'volumes': -1})
        reserve(db, conf, volumes=500)
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={'volumes': 0})
        assert len(reserve(db, conf, volumes=-1)) == 1

    def test_unknown_and_limit_only_resources_are_refused(self, db, conf):
        with pytest.raises(exception.QuotaResourceUnknown):
            reserve(db, conf, volumes_nosuchtype=1)
        with pytest.raises(exception.QuotaResourceUnknown):
            reserve(db, conf, per_volume_gigabytes=1)
        assert db_quotas.get_usages(db, project_id=PROJECT) == {}

    def test_a_new_usage_row_counts_what_exists(self, db, conf):
        add_type(db, 'lvm')
        with db.writer() as s:
            for i, size in enumerate((2, 3)):
                s.add(Volume(id=f'v{i}', project_id=PROJECT, size=size, use_quota=True,
                             volume_type_id='id-lvm', deleted=False))
        reserve(db, conf, **quota.volume_deltas(size=1, volume_type_name='lvm'))
        assert usage(db, 'gigabytes_lvm') == {'in_use': 5, 'reserved': 1}
        assert usage(db, 'volumes') == {'in_use': 2, 'reserved': 1}

    def test_negative_in_use_is_recounted(self, db, conf):
        reserve(db, conf, volumes=1)
        with db.writer() as s:
            s.execute(sa.update(QuotaUsage).values(in_use=-3))
        reserve(db, conf, volumes=1)
        assert usage(db, 'volumes') == {'in_use': 0, 'reserved': 2}


class TestConsume:
    """consume(): what *then* writes goes in before the usage rows are locked and checked."""

    @pytest.fixture(autouse=True)
    def lvm(self, db):
        add_type(db, 'lvm')

    @staticmethod
    def create(db, conf, volume_id, size=1):
        plan = quota.plan_volume(db, conf=conf, project_id=PROJECT,
                                 deltas=quota.volume_deltas(size=size, volume_type_name='lvm'),
                                 volume_type=types.SimpleNamespace(id='id-lvm', name='lvm'))

        def then(s):
            s.add(Volume(id=volume_id, project_id=PROJECT, size=size, use_quota=True,
                         volume_type_id='id-lvm', deleted=False))
            s.flush()
            return volume_id
        return quota.consume(db, None, conf=conf, plan=plan, then=then)

    def test_consumed_amounts_are_in_use_at_once(self, db, conf):
        assert self.create(db, conf, 'v0', size=2) == 'v0'
        assert usage(db, 'volumes') == {'in_use': 1, 'reserved': 0}
        assert usage(db, 'gigabytes') == {'in_use': 2, 'reserved': 0}

    def test_a_recount_does_not_count_the_new_row_twice(self, db, conf):
        self.create(db, conf, 'v0', size=2)
        with db.writer() as s:
            s.execute(sa.update(QuotaUsage).values(in_use=-3))
        self.create(db, conf, 'v1', size=3)
        assert usage(db, 'volumes') == {'in_use': 2, 'reserved': 0}
        assert usage(db, 'gigabytes') == {'in_use': 5, 'reserved': 0}
        assert usage(db, 'volumes_lvm') == {'in_use': 2, 'reserved': 0}
        assert usage(db, 'gigabytes_lvm') == {'in_use': 5, 'reserved': 0}

    def test_over_quota_after_a_recount_writes_nothing(self, db, conf):
        db_quotas.set_project_limits(db, project_id=PROJECT, limits={'volumes': 2})
        self.create(db, conf, 'v0')
        self.create(db, conf, 'v1')
        with db.writer() as s:
            s.execute(sa.update(QuotaUsage).values(in_use=-1))
        with pytest.raises(exception.VolumeLimitExceeded):
            self.create(db, conf, 'v2')
        with db.reader() as s:
            assert s.scalars(sa.select(Volume.id).order_by(Volume.id)).all() == ['v0', 'v1']
        assert usage(db, 'volumes') == {'in_use': -1, 'reserved': 0}


class TestReleaseAndExpire:
    def test_release_never_goes_below_zero(self, db, conf):
        quota.commit(db, None, reserve(db, conf, volumes=1, gigabytes=5))
        quota.release_usage(db, project_id=PROJECT, deltas={'volumes': -1, 'gigabytes': -9})
        assert usage(db, 'volumes') == {'in_use': 0, 'reserved': 0}
        assert usage(db, 'gigabytes') == {'in_use': 0, 'reserved': 0}

    def test_releasing_nothing_writes_nothing(self, db, conf):
        quota.commit(db, None, reserve(db, conf, volumes=1))
        quota.release_usage(db, project_id=PROJECT, deltas={})
        assert usage(db, 'volumes') == {'in_use': 1, 'reserved': 0}

    def test_expired_reservations_are_rolled_back(self, db, conf):
        old = reserve(db, conf, gigabytes=5)
        reserve(db, conf, volumes=1)
        with db.writer() as s:
            s.execute(sa.update(Reservation).where(Reservation.uuid.in_(old)).values(
                expire=utcnow() - datetime.timedelta(seconds=1)))
        assert quota.expire_reservations(db) == 1
        assert usage(db, 'gigabytes') == {'in_use': 0, 'reserved': 0}
        assert live_reservations(db) == ['volumes']

    def test_reservations_expire_after_reservation_expire(self, db, conf):
        conf.set_override('reservation_expire', 60)
        reserve(db, conf, volumes=1)
        with db.reader() as s:
            expire = s.scalar(sa.select(Reservation.expire))
        assert 55 <= (expire - utcnow()).total_seconds() <= 60


class TestVolumeSize:
    def test_per_volume_gigabytes_limit(self, db, conf):
        quota.check_volume_size(db, conf=conf, project_id=PROJECT, size=10 ** 6)
        db_quotas.set_project_limits(db, project_id=PROJECT,
                                     limits={'per_volume_gigabytes': 5})
        quota.check_volume_size(db, conf=conf, project_id=PROJECT, size=5)
        with pytest.raises(exception.VolumeSizeExceedsLimit) as caught:
            quota.check_volume_size(db, conf=conf, project_id=PROJECT, size=6)
        assert (caught.value.code, caught.value.msg) == (
            413, 'Requested volume size 6G is larger than maximum allowed limit 5G.')
