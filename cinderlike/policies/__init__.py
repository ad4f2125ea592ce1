"""Default policy rules of every API resource (oslo.policy.policies entry point)."""

import itertools

from cinderlike.policies import (
    attachments,
    backups,
    base,
    capabilities,
    clusters,
    group_snapshots,
    group_types,
    groups,
    hosts,
    limits,
    manageable,
    messages,
    qos_specs,
    quota_class_sets,
    quota_sets,
    scheduler_stats,
    services,
    snapshots,
    transfers,
    types,
    volume_type_encryption,
    volumes,
    workers,
)


def list_rules():
    """Every default rule, for the enforcer and oslopolicy-sample-generator."""
    return list(itertools.chain(base.list_rules(), services.list_rules(), types.list_rules(),
                                volumes.list_rules(), quota_sets.list_rules(),
                                clusters.list_rules(),
                                quota_class_sets.list_rules(), limits.list_rules(),
                                messages.list_rules(), scheduler_stats.list_rules(),
                                capabilities.list_rules(), workers.list_rules(),
                                qos_specs.list_rules(), transfers.list_rules(),
                                snapshots.list_rules(), attachments.list_rules(),
                                backups.list_rules(), volume_type_encryption.list_rules(),
                                hosts.list_rules(), manageable.list_rules(),
                                group_types.list_rules(), groups.list_rules(),
                                group_snapshots.list_rules()))
