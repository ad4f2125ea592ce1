"""Host-side access to a volume's bytes (os-brick's role in Cinder), for cinderlike-backup and
cinderlike-volume: `properties()` is the connector dict this host sends with
initialize_connection, and `open_volume()` attaches what the volume service returned.

    with connector.open_volume(info, writable=False) as volume:
        while chunk := volume.read(4 * 1024 * 1024): ...
"""

from cinderlike.connector.attach import open_volume
from cinderlike.connector.host import properties
from cinderlike.connector.volume_file import VolumeFile

__all__ = ['VolumeFile', 'open_volume', 'properties']
