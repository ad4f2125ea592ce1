"""[DEFAULT] options of cinderlike-api: listening socket, workers, auth and listing limits."""

from oslo_config import cfg

# Any one path segment: what noauth deployments (cinderlike-all, the tests) set, since
# their `user:project` tokens name projects such as `admin`.
ANY_PROJECT_ID_REGEX = r'[^/]+'

OPTS = [
    cfg.HostAddressOpt('osapi_volume_listen', default='0.0.0.0',
                       help='Address the volume API listens on.'),
    cfg.PortOpt('osapi_volume_listen_port', default=8776,
                help='Port the volume API listens on.'),
    cfg.IntOpt('osapi_volume_workers', min=1, sample_default='<number of CPUs>',
               help='Number of API worker processes; the number of CPUs when unset.'),
    cfg.IntOpt('wsgi_default_pool_size', default=100, min=1,
               help='Number of threads each API worker process serves requests with.'),
    cfg.BoolOpt('wsgi_keep_alive', default=True,
                help='Keep client connections open between requests (HTTP keep-alive).'),
    cfg.IntOpt('client_socket_timeout', default=900, min=0,
               help='Seconds an idle kept-alive client connection stays open. A short '
                    'value races clients that reuse a connection the server is closing.'),
    cfg.StrOpt('auth_strategy', default='keystone', choices=['noauth', 'keystone'],
               help='keystone validates tokens with keystonemiddleware; noauth trusts '
                    '"user:project" tokens and makes every caller an admin (testing only).'),
    cfg.IntOpt('osapi_max_limit', default=1000, min=1,
               help='Maximum number of items a collection returns in one response.'),
    cfg.IntOpt('osapi_volume_listings_at_once', default=1, min=1,
               help='Listing pages (volumes, snapshots, backups) one API worker process '
                    'builds at once; the others wait their turn. A process runs one thread '
                    'of Python at a time, so pages built together take as long each as all '
                    'of them, and hold all their rows and views in memory.'),
    cfg.StrOpt('default_volume_type', default='__DEFAULT__', required=True,
               help='Volume type of volumes created without one, unless the project has a '
                    'default type of its own (API 3.62).'),
    cfg.StrOpt('default_group_type',
               help='Group type GET /group_types/default answers (none unless set).'),
    cfg.BoolOpt('cloned_volume_same_az', default=True,
                help='A clone must be created in the availability zone of its source volume.'),
    cfg.BoolOpt('allow_availability_zone_fallback', default=False,
                help='A volume asked for in an availability zone no volume service serves is '
                     'created in default_availability_zone (or storage_availability_zone) '
                     'instead of being refused.'),
    cfg.IntOpt('az_cache_duration', default=3600, min=0,
               help='Seconds a volume create trusts the availability zones it read last; a '
                    'zone not among them is looked up again before the create is refused.'),
    cfg.IntOpt('osapi_max_request_body_size', default=114688, min=1,
               help='Largest request body in bytes the API accepts.'),
    cfg.StrOpt('project_id_regex', default=r'[0-9a-f\-]+',
               help='The validation regex for project ids in URLs (/v3/{project_id}/...): '
                    'a path whose project segment does not match is no route (404). The '
                    'default matches the ids Keystone makes.'),
    cfg.IntOpt('rpc_send_retries', default=2, min=-1,
               help='How many times cinderlike-api tries again to send an RPC message while '
                    'the message broker cannot be reached, before it undoes what the request '
                    'wrote and answers 503 (-1: until it can, which holds the request).'),
    cfg.StrOpt('public_endpoint',
               help='Base URL used in links of API responses, when the API sits behind a '
                    'proxy; the request URL is used otherwise.'),
]


def register_opts(conf):
    conf.register_opts(OPTS)


def list_opts():
    return [(None, OPTS)]
