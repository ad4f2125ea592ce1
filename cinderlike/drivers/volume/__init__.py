"""Volume drivers and the loader cinderlike-volume uses to pick one per backend."""

from oslo_utils import importutils

from cinderlike import exception
from cinderlike.drivers.volume import base

# Short names an operator may write in `volume_driver` instead of a class path.
ALIASES = {
    'fake': 'cinderlike.drivers.volume.fake.FakeDriver',
    'file': 'cinderlike.drivers.volume.file.FileDriver',
}


def driver_class(name):
    """The VolumeDriver subclass named by `volume_driver` (alias or class path).

    :raises VolumeDriverNotFound: when *name* is empty, unknown or not a VolumeDriver.
    """
    if not name:
        raise exception.VolumeDriverNotFound(name=name)
    path = ALIASES.get(name, name)
    try:
        cls = importutils.import_class(path)
    except (ImportError, ValueError) as exc:
        raise exception.VolumeDriverNotFound(name=name) from exc
    if not (isinstance(cls, type) and issubclass(cls, base.VolumeDriver)):
        raise exception.VolumeDriverNotFound(name=name)
    return cls
