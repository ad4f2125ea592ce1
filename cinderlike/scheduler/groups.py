"""cinderlike-scheduler: the backend of a new generic volume group (Cinder's
_find_valid_backends_for_group / _choose_top_backend_generic_group).

A group's volumes all live on one backend: it must pass the filters for the group type and
for every one of the group's volume types. A group asks for no capacity (size 0): its volumes
claim theirs when they are created into it.

NOTE(group_specs): as in Cinder, the group type is the request's resource type with its
`group_specs` and no `extra_specs`, so the capabilities filter does not match group specs
against backends; the zone and the volume types decide.
"""

from cinderlike import exception


def _backend_of(pool) -> str:
    return pool.backend_id.partition('#')[0]


def _spec(request_spec: dict, volume_type: dict) -> dict:
    return {'group_id': request_spec['group_id'], 'volume_type': volume_type,
            'volume_properties': {'size': 0,
                                  'availability_zone': request_spec.get('availability_zone')}}


def choose_pool(placer, pools, request_spec: dict, ctx=None):
    """The best pool (by the first volume type's weighing) of a backend every type passes.

    :raises NoValidBackend:
    """
    group_type = request_spec['group_type']
    group_fit = {_backend_of(w.obj) for w in placer.weighed_candidates(
        pools, _spec(request_spec, dict(group_type)), {}, ctx)}
    ranked = []
    for volume_type in request_spec['volume_types']:
        ranked.append([w.obj for w in placer.weighed_candidates(
            pools, _spec(request_spec, volume_type), {}, ctx)])
    common = set(group_fit)
    for candidates in ranked:
        common &= {_backend_of(pool) for pool in candidates}
    for pool in ranked[0]:
        if _backend_of(pool) in common:
            return pool
    raise exception.NoValidBackend(reason='No weighed backends available')
