"""cinderlike-api: zone availability → the os-availability-zone document."""


def index(zones: dict[str, bool]) -> dict:
    """{"availabilityZoneInfo": [{"zoneName", "zoneState": {"available"}}]}."""
    return {'availabilityZoneInfo': [
        {'zoneName': name, 'zoneState': {'available': available}}
        for name, available in zones.items()]}
