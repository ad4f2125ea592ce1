"""cinderlike-api: the services a workers cleanup answers with (Cinder's workers view)."""

FIELDS = ('id', 'host', 'binary', 'cluster_name')


def service_list(services: list[dict]) -> list[dict]:
    return [{field: service.get(field) for field in FIELDS} for service in services]


def cleanup(cleaning: list[dict], unavailable: list[dict]) -> dict:
    return {'cleaning': service_list(cleaning), 'unavailable': service_list(unavailable)}
