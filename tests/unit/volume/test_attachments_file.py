"""Attachments on the file driver (real qemu-img files): a host connects through os-brick
with the connection info the volume service returns, writes, and after a restart of the
volume service (init_host re-exports in-use volumes) reads and writes again."""

import pytest
from os_brick.initiator import connector as brick_connector

from cinderlike.db import attachments as db_attachments
from cinderlike.volume import manager as volume_manager
from tests.unit.volume.conftest import HOST, add_volume, ctx, row
from tests.unit.volume.test_file_backend import file_manager  # noqa: F401,F811

pytestmark = pytest.mark.qemu_img

CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.1993-08.org.debian:01:abc'}


def _connect(info: dict) -> dict:
    """What a host does with the attachment's connection info (Nova's os-brick call)."""
    brick = brick_connector.InitiatorConnector.factory(
        info['driver_volume_type'].upper(), root_helper=None)
    data = {k: v for k, v in info.items() if k != 'driver_volume_type'}
    return brick.connect_volume(data)


def _write_read(path: str, payload: bytes) -> bytes:
    with open(path, 'r+b') as device:
        device.write(payload)
        device.flush()
        device.seek(0)
        return device.read(len(payload))


def test_attached_host_reads_and_writes_again_after_a_restart(file_manager, db, conf):  # noqa: F811
    volume = add_volume(db, status='creating')
    file_manager.create_volume(ctx(), volume_id=volume.id, request_spec={},
                               filter_properties={})
    assert row(db, volume.id).status == 'available'
    attachment = db_attachments.reserve(db, volume_id=volume.id, instance_uuid=None,
                                        attach_mode='null')
    info = file_manager.attachment_update(ctx(), volume_id=volume.id,
                                          attachment_id=attachment.id,
                                          connector=dict(CONNECTOR))
    db_attachments.complete(db, attachment_id=attachment.id)
    device = _connect(info)
    assert _write_read(device['path'], b'before restart') == b'before restart'

    restarted = volume_manager.VolumeManager(conf, host=HOST, db=db, backend='lvm',
                                             coordinator=file_manager.coordinator)
    restarted.scheduler_api = file_manager.scheduler_api
    restarted.init_host(ctx())
    assert restarted.initialized and row(db, volume.id).status == 'in-use'
    with open(device['path'], 'rb') as again:
        assert again.read(14) == b'before restart'
    assert _write_read(device['path'], b'after restart!') == b'after restart!'
