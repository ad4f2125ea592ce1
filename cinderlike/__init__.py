"""cinderlike: a reimplementation of OpenStack Cinder, the block-storage service."""

import sys

# NOTE(eventlet): oslo.service installs eventlet, and futurist (taskflow, oslo.messaging)
# imports it whenever it is importable, which prints EventletDeprecationWarning and loads a
# green-thread runtime a threaded service never uses. A None entry makes `import eventlet`
# fail, so those libraries take their no-eventlet paths; an eventlet already imported by a
# host program is left alone.
sys.modules.setdefault('eventlet', None)

from oslo_service import backend as _service_backend  # noqa: E402
from oslo_service.backend import exceptions as _backend_exceptions  # noqa: E402

# NOTE(threads): importing oslo.messaging imports oslo_service.service, which selects
# oslo.service's default (eventlet) backend at import time unless one was chosen before.
# cinderlike runs on native threads, so the choice is made here, ahead of every import.
try:
    _service_backend.init_backend(_service_backend.BackendType.THREADING)
except _backend_exceptions.BackendAlreadySelected:
    # NOTE(threads): only a host program that imported oslo.messaging before cinderlike
    # gets here (oslo-config-generator loads every namespace's options in its own order);
    # listing options needs no service backend. cinderlike's own commands import it first.
    pass
