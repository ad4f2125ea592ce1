"""A volume backend's replication status (services and clusters `replication_status`), as
Cinder's fields.ReplicationStatus; failover_host moves it."""

import enum


class Status(enum.StrEnum):
    ERROR = 'error'
    ENABLED = 'enabled'
    DISABLED = 'disabled'
    NOT_CAPABLE = 'not-capable'
    FAILING_OVER = 'failing-over'
    FAILOVER_ERROR = 'failover-error'
    FAILED_OVER = 'failed-over'
    ENABLING = 'enabling'
    DISABLING = 'disabling'


# A failover may start from these (Cinder's API.failover).
FAILOVER_FROM = [Status.ENABLED, Status.FAILED_OVER]
