"""os-availability-zone: the zones of the volume services and whether any is enabled."""

from tests.unit.api.conftest import ADMIN, add_service


def _zones(client):
    resp = client.simulate_get('/v3/admin/os-availability-zone', headers=ADMIN)
    assert resp.status_code == 200
    return resp.json


def test_no_volume_services_no_zones(client, db):
    add_service(db, host='node1', binary='cinder-scheduler', zone='az-sched')
    assert _zones(client) == {'availabilityZoneInfo': []}


def test_zone_available_while_any_volume_service_is_enabled(client, db):
    add_service(db, host='a@lvm', zone='az1', disabled=True)
    add_service(db, host='b@lvm', zone='az1')
    add_service(db, host='c@lvm', zone='az2', disabled=True)
    # Down services still count, as in Cinder: only `disabled` decides.
    add_service(db, host='d@lvm', zone='az3', heartbeat_age=3600)
    assert _zones(client) == {'availabilityZoneInfo': [
        {'zoneName': 'az1', 'zoneState': {'available': True}},
        {'zoneName': 'az2', 'zoneState': {'available': False}},
        {'zoneName': 'az3', 'zoneState': {'available': True}},
    ]}
