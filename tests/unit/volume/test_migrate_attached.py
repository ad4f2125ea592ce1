"""An attached volume's retype with migration: Nova is asked to swap (a real HTTP server
standing in for it), and its completion callback finishes the move; the bytes, claims and
attachments are followed. Also what a failed destination and an interrupted service leave."""

import shutil

import pytest
from keystoneauth1 import loading as ks_loading

from cinderlike.api.operations import migrations as ops
from cinderlike.db import attachments as db_attachments
from cinderlike.db import migrations_status as db_migrations
from cinderlike.db import pools as db_pools
from cinderlike.volume import recovery
from tests.fixtures import daemons, fake_nova
from tests.unit.volume.conftest import ctx, row, usage, workers
from tests.unit.volume.migration_stack import (
    claims,
    digest,
    exists,
    make_type,
    pool_of,
    run_stack,
    volume_on,
    write_pattern,
)

pytestmark = pytest.mark.qemu_img

INSTANCE = '6c7e5d8e-7a55-4a4e-9f0a-2a0f3b9d4c11'
CONNECTOR = {'host': 'compute-1', 'initiator': 'iqn.1993-08.org.debian:01:abc'}


@pytest.fixture
def nova(conf):
    with fake_nova.running() as fake:
        conf.set_override('auth_type', 'none', group='nova')
        conf.register_opts(ks_loading.get_auth_plugin_conf_options('none'), group='nova')
        conf.set_override('endpoint', fake.compute_url, group='nova')
        yield fake


@pytest.fixture
def stack(conf, db, tmp_path, nova):
    yield from run_stack(conf, db, tmp_path)


def _attach(stack, volume_id, host):
    """An attached attachment of the server INSTANCE, as Nova makes it."""
    attachment = db_attachments.reserve(stack.db, volume_id=volume_id, instance_uuid=INSTANCE,
                                        attach_mode='rw')
    stack.rpc.volume.attachment_update(ctx(), volume_id=volume_id,
                                       attachment_id=attachment.id,
                                       connector=dict(CONNECTOR), host=host)
    db_attachments.complete(stack.db, attachment_id=attachment.id)
    return attachment


def _detach(stack, volume_id, attachment_id):
    db_attachments.begin_detach(stack.db, attachment_id=attachment_id)
    db_attachments.finish_detach(stack.db, volume_id=volume_id, attachment_id=attachment_id)


def test_in_use_retype_goes_through_novas_swap_and_completion(stack, db, nova):
    elsewhere = make_type(db, 'elsewhere', volume_backend_name='b2')
    volume = volume_on(stack, 'b1', size=1)
    old_path = stack.path(volume.id)
    before = write_pattern(old_path, seed=b'attached')
    old_attachment = _attach(stack, volume.id, pool_of('b1'))
    assert row(db, volume.id).status == 'in-use'
    ops.retype(stack.conf, db, stack.rpc, None, ctx(), volume=row(db, volume.id),
               new_type='elsewhere', migration_policy='on-demand')
    daemons.wait_for(lambda: nova.swaps(), timeout=30)
    (swap,) = nova.swaps()
    target_id = swap.body['volumeAttachment']['volumeId']
    assert swap.path.endswith(f'/servers/{INSTANCE}/os-volume_attachments/{volume.id}')
    assert row(db, volume.id).migration_status == 'migrating'
    assert row(db, target_id).migration_status == f'target:{volume.id}'
    # Nova's part: attach the destination, copy in the guest, detach the source.
    new_attachment = _attach(stack, target_id, pool_of('b2'))
    shutil.copyfile(old_path, stack.path(target_id))
    _detach(stack, volume.id, old_attachment.id)
    saved = ops.migrate_volume_completion(db, stack.rpc, ctx(), volume=row(db, volume.id),
                                          new_volume=row(db, target_id), error=False)
    assert saved == volume.id
    done = row(db, volume.id)
    assert (done.status, done.migration_status, done.host, done.volume_type_id) == (
        'in-use', 'success', pool_of('b2'), elsewhere.id)
    assert [a.id for a in db_attachments.of_volume(db, volume_id=volume.id)] == [
        new_attachment.id]
    assert digest(stack.path(volume.id)) == before
    daemons.wait_for(lambda: row(db, target_id).deleted, timeout=20)
    assert not exists(old_path) and workers(db) == []
    assert claims(db) == {pool_of('b1'): 0, pool_of('b2'): 1} and db_pools.drift(db) == []
    assert usage(db, 'volumes_elsewhere') == (1, 0) and usage(db, 'volumes___DEFAULT__') == (0, 0)


def test_nova_refusing_the_swap_ends_the_migration_in_error(stack, db, nova):
    make_type(db, 'elsewhere', volume_backend_name='b2')
    nova.swap_status = 409
    volume = volume_on(stack, 'b1', size=1)
    _attach(stack, volume.id, pool_of('b1'))
    ops.retype(stack.conf, db, stack.rpc, None, ctx(), volume=row(db, volume.id),
               new_type='elsewhere', migration_policy='on-demand')
    daemons.wait_for(lambda: row(db, volume.id).migration_status == 'error'
                     and not workers(db), timeout=30)
    (swap,) = nova.swaps()
    target_id = swap.body['volumeAttachment']['volumeId']
    daemons.wait_for(lambda: row(db, target_id).deleted, timeout=20)
    done = row(db, volume.id)
    assert (done.status, done.host) == ('in-use', pool_of('b1'))
    assert claims(db) == {pool_of('b1'): 1, pool_of('b2'): 0}
    assert usage(db, 'volumes_elsewhere') == (0, 0) and usage(db, 'volumes___DEFAULT__') == (1, 0)


def test_completion_with_error_deletes_the_destination(stack, db, nova):
    make_type(db, 'elsewhere', volume_backend_name='b2')
    volume = volume_on(stack, 'b1', size=1)
    _attach(stack, volume.id, pool_of('b1'))
    ops.retype(stack.conf, db, stack.rpc, None, ctx(), volume=row(db, volume.id),
               new_type='elsewhere', migration_policy='on-demand')
    daemons.wait_for(lambda: nova.swaps(), timeout=30)
    target_id = nova.swaps()[0].body['volumeAttachment']['volumeId']
    assert ops.migrate_volume_completion(db, stack.rpc, ctx(), volume=row(db, volume.id),
                                         new_volume=row(db, target_id),
                                         error=True) == volume.id
    daemons.wait_for(lambda: row(db, target_id).deleted, timeout=20)
    done = row(db, volume.id)
    assert (done.status, done.migration_status, done.host) == ('in-use', 'error', pool_of('b1'))
    assert claims(db) == {pool_of('b1'): 1, pool_of('b2'): 0} and workers(db) == []


def test_a_destination_never_created_fails_the_migration_and_gives_its_claim_back(
        stack, db, conf):
    """The destination's service is gone: its create waits past the timeout; the
    migration ends in error and the destination, `deleting`, holds no claim any more."""
    conf.set_override('migration_create_volume_timeout_secs', 1)
    volume = volume_on(stack, 'b1', size=1)
    stack.services['b2'].stop()
    ops.migrate_volume(stack.conf, db, stack.rpc, ctx(), volume=volume, host=pool_of('b2'),
                       cluster_name=None, force_host_copy=False, lock_volume=False)
    daemons.wait_for(lambda: row(db, volume.id).migration_status == 'error'
                     and not workers(db), timeout=30)
    (target,) = db_migrations.targets_of(db, source_id=volume.id)
    assert (target.status, target.launched_at) == ('deleting', None)
    assert row(db, volume.id).status == 'available'
    assert claims(db) == {pool_of('b1'): 1, pool_of('b2'): 0} and db_pools.drift(db) == []


def test_an_interrupted_migration_is_settled_at_start_up(stack, db):
    """kill -9 of the source's service mid-copy, as its restart finds it: the workers row
    names it, the destination holds a claim; recovery ends it in error, claims once."""
    volume = volume_on(stack, 'b1', size=1)
    b1 = stack.manager('b1')
    db_migrations.begin(db, volume_id=volume.id, host=pool_of('b2'), cluster_name=None,
                        lock_volume=True)
    target = db_migrations.place_target(db, source=row(db, volume.id), pool=pool_of('b2'),
                                        host=pool_of('b2'), cluster_name=None,
                                        availability_zone='nova',
                                        volume_type_id=volume.volume_type_id)
    db_migrations.begin_run(db, volume_id=volume.id, service_id=b1.service_id,
                            request={'target_id': target.id, 'reservations': []})
    assert claims(db) == {pool_of('b1'): 1, pool_of('b2'): 1}
    recovery.do_cleanup(b1, ctx(), recovery.own_request(b1))
    done = row(db, volume.id)
    assert (done.status, done.migration_status) == ('available', 'error')
    daemons.wait_for(lambda: row(db, target.id).deleted, timeout=20)
    assert claims(db) == {pool_of('b1'): 1, pool_of('b2'): 0} and db_pools.drift(db) == []
    assert workers(db) == []
