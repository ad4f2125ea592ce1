"""Nova's external events from the volume service (Cinder's cinder/compute/nova.py).

A keystoneauth1 session from the [nova] options and an adapter on the catalog's `compute`
endpoint. The auth is the [nova] auth plugin when `auth_type` is set (Cinder's privileged
user; `auth_type = none` with `endpoint` for a Nova without Keystone), else the request's
own token against `token_auth_url` or the identity endpoint of the token's catalog.
"""

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import identity
from keystoneauth1 import loading as ks_loading
from keystoneauth1.adapter import Adapter
from oslo_log import log as logging

from cinderlike import conf as cl_conf
from cinderlike import exception
from cinderlike.conf import nova as nova_conf

LOG = logging.getLogger(__name__)

EXTEND_MICROVERSION = '2.51'
EVENTS_PATH = '/os-server-external-events'
SWAP_MICROVERSION = '2.1'


def _identity_endpoint(opts, ctx) -> str:
    """The identity endpoint of the token's (v2-style) service catalog, in our region."""
    for service in ctx.service_catalog or []:
        if service.get('type') != 'identity':
            continue
        for endpoint in service.get('endpoints', []):
            if not opts.region_name or endpoint.get('region') == opts.region_name:
                return endpoint.get(f'{opts.interface}URL')
    raise ks_exc.EndpointNotFound()


def _auth(conf, ctx):
    opts = conf[nova_conf.GROUP]
    if opts.auth_type:
        return ks_loading.load_auth_from_conf_options(conf, nova_conf.GROUP)
    return identity.Token(auth_url=opts.token_auth_url or _identity_endpoint(opts, ctx),
                          token=ctx.auth_token, project_name=ctx.project_name,
                          project_domain_id=ctx.project_domain_id)


def compute_adapter(conf, ctx, *, microversion: str) -> Adapter:
    """An adapter on Nova's compute endpoint asking for *microversion*."""
    opts = conf[nova_conf.GROUP]
    session = ks_loading.load_session_from_conf_options(conf, nova_conf.GROUP,
                                                        auth=_auth(conf, ctx))
    return Adapter(session, service_type='compute', interface=opts.interface,
                   region_name=opts.region_name, default_microversion=microversion,
                   global_request_id=ctx.global_id)


def _accepted(answer) -> bool:
    """Cinder's reading of Nova's answer: a list whose every event carries a code.

    An event Nova turned down (a code other than 200) is only logged, as in Cinder.
    """
    results = answer.get('events') if isinstance(answer, dict) else None
    if not isinstance(results, list):
        LOG.error('Error response returned from nova: %s.', answer)
        return False
    complete = True
    for event in results:
        code = event.get('code') if isinstance(event, dict) else None
        if code is None:
            complete = False
        elif code != 200:
            LOG.warning('Nova event: %s returned with failed status.', event)
        else:
            LOG.info('Nova event response: %s.', event)
    if not complete:
        LOG.error('Error response returned from nova: %s.', answer)
    return complete


class API:
    """What the volume service tells Nova."""

    def __init__(self, conf):
        cl_conf.register_on_demand(conf, nova_conf)
        self.conf = conf

    def _send_events(self, ctx, events: list[dict], *, microversion: str) -> bool:
        """POST *events*; False (logged) when Nova could not be told."""
        try:
            adapter = compute_adapter(self.conf, ctx, microversion=microversion)
            answer = adapter.post(EVENTS_PATH, json={'events': events}).json()
        except ks_exc.NotFound:
            LOG.warning('Nova returned NotFound for events: %s.', events)
            return False
        except Exception:
            LOG.exception('Failed to notify nova on events: %s.', events)
            return False
        return _accepted(answer)

    def extend_volume(self, ctx, instance_uuids: list[str], volume_id: str) -> bool:
        """Tell the servers using *volume_id* that it grew (`volume-extended`, 2.51)."""
        events = [{'name': 'volume-extended', 'server_uuid': server_uuid, 'tag': volume_id}
                  for server_uuid in instance_uuids]
        return self._send_events(ctx, events, microversion=EXTEND_MICROVERSION)

    def update_server_volume(self, ctx, server_id: str, volume_id: str,
                             new_volume_id: str) -> None:
        """Nova's swap volume: move *server_id* from *volume_id* onto *new_volume_id*
        (`PUT /servers/{server}/os-volume_attachments/{volume}`); Nova copies and then calls
        os-migrate_volume_completion.

        :raises VolumeMigrationFailed: Nova refused or could not be reached.
        """
        path = f'/servers/{server_id}/os-volume_attachments/{volume_id}'
        try:
            adapter = compute_adapter(self.conf, ctx, microversion=SWAP_MICROVERSION)
            adapter.put(path, json={'volumeAttachment': {'volumeId': new_volume_id}})
        except Exception as error:
            raise exception.VolumeMigrationFailed(
                reason=f'Nova could not swap volume {volume_id} of server {server_id}: '
                       f'{error}') from error
