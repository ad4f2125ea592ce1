"""cinderlike: a reimplementation of OpenStack Cinder, the block-storage service."""

from oslo_service import backend as _service_backend

# NOTE(threads): importing oslo.messaging imports oslo_service.service, which selects
# oslo.service's default (eventlet) backend at import time unless one was chosen before.
# cinderlike runs on native threads, so the choice is made here, ahead of every import.
_service_backend.init_backend(_service_backend.BackendType.THREADING)
