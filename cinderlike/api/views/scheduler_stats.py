"""cinderlike-api: the scheduler's pools → the GET /scheduler-stats/get_pools document."""


def _capabilities(capabilities: dict | None) -> dict | None:
    """A pool's capabilities as shown: storage_protocol as its first (preferred) variant."""
    if not capabilities:
        return capabilities
    protocol = capabilities.get('storage_protocol')
    if isinstance(protocol, list):
        capabilities = {**capabilities, 'storage_protocol': protocol[0] if protocol else None}
    return capabilities


def pools(items: list[dict], *, detail: bool) -> dict:
    """`{"pools": [{"name": ...}]}`, with each pool's capabilities when *detail*."""
    if detail:
        return {'pools': [{'name': pool.get('name'),
                           'capabilities': _capabilities(pool.get('capabilities'))}
                          for pool in items]}
    return {'pools': [{'name': pool.get('name')} for pool in items]}
