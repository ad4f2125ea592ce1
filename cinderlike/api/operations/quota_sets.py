"""cinderlike-api: quota-set rules that need data: a new limit may not go below what is used."""

from cinderlike import exception, quota
from cinderlike.db import quotas as db_quotas


def update(conf, db, *, project_id: str, limits: dict[str, int]) -> None:
    """Set the project's *limits*, all or none.

    Like Cinder, only resources the project already has its own limit for are checked
    against in_use + reserved; -1 and per_volume_gigabytes never are.
    :raises Invalid: "Quota <key> limit must be equal or greater than existing resources...".
    """
    own = quota.project_quotas(conf, db, project_id=project_id, usages=True, only_own=True)
    for key, value in limits.items():
        if key == 'per_volume_gigabytes' or value == -1 or key not in own:
            continue
        used = own[key]['in_use'] + own[key]['reserved']
        if value < used:
            raise exception.Invalid(
                f'Quota {key} limit must be equal or greater than existing resources. '
                f'Current usage is {used} and the requested limit is {value}.')
    db_quotas.set_project_limits(db, project_id=project_id, limits=limits)
