"""cinderlike-api: quota documents of os-quota-sets, os-quota-class-sets and /limits."""

# /limits names of the project-wide limits (Cinder's limits view builder).
_ABSOLUTE = {
    'volumes': 'maxTotalVolumes',
    'snapshots': 'maxTotalSnapshots',
    'gigabytes': 'maxTotalVolumeGigabytes',
    'backups': 'maxTotalBackups',
    'backup_gigabytes': 'maxTotalBackupGigabytes',
}
_USED = {
    'volumes': 'totalVolumesUsed',
    'gigabytes': 'totalGigabytesUsed',
    'snapshots': 'totalSnapshotsUsed',
    'backups': 'totalBackupsUsed',
    'backup_gigabytes': 'totalBackupGigabytesUsed',
}


def quota_set(quotas: dict[str, dict], *, project_id: str | None = None,
              usage: bool = False) -> dict:
    """{"quota_set": {<res>: limit | {limit, in_use, reserved}[, "id"]}}."""
    shown = {name: (dict(values) if usage else values['limit'])
             for name, values in quotas.items()}
    if project_id is not None:
        shown['id'] = str(project_id)
    return {'quota_set': shown}


def limits_only(limits: dict[str, int], *, key: str, set_id: str | None = None) -> dict:
    """{key: {<res>: limit[, "id"]}}, for defaults and quota classes."""
    shown = dict(limits)
    if set_id is not None:
        shown['id'] = str(set_id)
    return {key: shown}


def limits(quotas: dict[str, dict], *, used: bool) -> dict:
    """{"limits": {"rate": [], "absolute": {...}}}; `total*Used` only when *used*."""
    absolute = {shown: quotas[name]['limit'] for name, shown in _ABSOLUTE.items()
                if name in quotas}
    if used:
        absolute.update({shown: quotas[name]['in_use'] for name, shown in _USED.items()
                         if name in quotas})
    return {'limits': {'rate': [], 'absolute': absolute}}
