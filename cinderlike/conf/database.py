"""[database] options: where the one SQL database lives and how connections are pooled."""

from oslo_config import cfg

GROUP = 'database'

OPTS = [
    cfg.StrOpt('connection', secret=True,
               default='sqlite:///$state_path/cinderlike.sqlite',
               help='SQLAlchemy URL of the database (postgresql+psycopg2://, mysql+pymysql://, '
                    'sqlite:///).'),
    cfg.IntOpt('max_pool_size', default=5, min=1,
               help='Connections kept open per process (ignored for SQLite).'),
    cfg.IntOpt('max_overflow', default=50, min=0,
               help='Connections allowed beyond max_pool_size under load.'),
    cfg.IntOpt('overflow_idle_time', default=60, min=0,
               help='Seconds a connection opened past max_pool_size may stay idle before it '
                    'is closed (0: closed as soon as it is handed back, as oslo.db does). '
                    'The most recently used connections are handed out first, so only those '
                    'the load no longer needs grow idle.'),
    cfg.IntOpt('pool_timeout', default=30, min=1,
               help='Seconds to wait for a pooled connection.'),
    cfg.IntOpt('connect_timeout', default=10, min=1,
               help='Seconds to wait for a new connection to the database server (ignored '
                    'for SQLite). While the server cannot be reached the API answers 503 '
                    'once it has waited this long, so keep it below rpc_response_timeout.'),
    cfg.IntOpt('connection_recycle_time', default=3600, min=1,
               help='Seconds after which a pooled connection is replaced.'),
    cfg.BoolOpt('connection_debug', default=False,
                help='Log every SQL statement.'),
    # NOTE(retry): oslo.db's names and defaults; here they bound the retries of the
    # transactions that end an operation in the daemons (db/settle.py).
    cfg.IntOpt('db_max_retries', default=20, min=0,
               help='Times a transaction that ends an operation is tried again while the '
                    'database cannot be reached, before the daemon gives up on it.'),
    cfg.IntOpt('db_retry_interval', default=1, min=1,
               help='Seconds before the first retry; doubled after each one.'),
    cfg.IntOpt('db_max_retry_interval', default=10, min=1,
               help='Upper bound of the seconds between two retries.'),
]


def register_opts(conf):
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return [(GROUP, OPTS)]
