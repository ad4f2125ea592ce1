"""GET /limits: absolute limits for everyone, used values for readers of the project."""

from cinderlike import quota
from cinderlike.db import quotas as db_quotas
from tests.unit.api.conftest import ADMIN


def identity(roles, project='p1'):
    return {'X-User-Id': 'u1', 'X-Project-Id': project, 'X-Roles': roles}


def test_limits_of_the_callers_project_with_usage(keystone_client, db, conf):
    db_quotas.set_project_limits(db, project_id='p1', limits={'volumes': 4})
    quota.commit(db, None, quota.reserve(db, None, conf=conf, project_id='p1',
                                         deltas={'volumes': 2, 'gigabytes': 7}))
    quota.reserve(db, None, conf=conf, project_id='p1', deltas={'volumes': 1})
    resp = keystone_client.simulate_get('/v3/p1/limits', headers=identity('reader'))
    assert resp.status_code == 200
    assert resp.json == {'limits': {'rate': [], 'absolute': {
        'maxTotalVolumes': 4, 'maxTotalSnapshots': 10, 'maxTotalVolumeGigabytes': 1000,
        'maxTotalBackups': 10, 'maxTotalBackupGigabytes': 1000, 'totalVolumesUsed': 2,
        'totalGigabytesUsed': 7, 'totalSnapshotsUsed': 0, 'totalBackupsUsed': 0,
        'totalBackupGigabytesUsed': 0}}}


def test_without_reader_role_only_the_maxima_show(keystone_client):
    resp = keystone_client.simulate_get('/v3/limits', headers=identity('observer'))
    assert resp.status_code == 200
    assert sorted(resp.json['limits']['absolute']) == [
        'maxTotalBackupGigabytes', 'maxTotalBackups', 'maxTotalSnapshots',
        'maxTotalVolumeGigabytes', 'maxTotalVolumes']


def test_admin_project_id_from_3_39(client, db):
    db_quotas.set_project_limits(db, project_id='other', limits={'volumes': 2})
    headers = dict(ADMIN, **{'OpenStack-API-Version': 'volume 3.39'})
    resp = client.simulate_get('/v3/limits', headers=headers, params={'project_id': 'other'})
    assert resp.json['limits']['absolute']['maxTotalVolumes'] == 2
    old = dict(ADMIN, **{'OpenStack-API-Version': 'volume 3.38'})
    resp = client.simulate_get('/v3/limits', headers=old, params={'project_id': 'other'})
    assert resp.json['limits']['absolute']['maxTotalVolumes'] == 10


def test_non_admin_project_id_is_ignored(keystone_client, db):
    db_quotas.set_project_limits(db, project_id='other', limits={'volumes': 2})
    headers = dict(identity('reader'), **{'OpenStack-API-Version': 'volume 3.50'})
    resp = keystone_client.simulate_get('/v3/limits', headers=headers,
                                        params={'project_id': 'other'})
    assert resp.json['limits']['absolute']['maxTotalVolumes'] == 10
