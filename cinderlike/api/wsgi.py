"""cinderlike-api under an external WSGI server (uwsgi, mod_wsgi): `application`.

The configuration file is $CINDERLIKE_CONFIG, else /etc/cinderlike/cinderlike.conf.
"""

import os

from oslo_log import log as logging

from cinderlike import conf as cl_conf
from cinderlike.api.app import create_app

DEFAULT_CONFIG = '/etc/cinderlike/cinderlike.conf'


def init_application():
    """Parse the configuration, set up logging and build the app."""
    path = os.environ.get('CINDERLIKE_CONFIG')
    argv = ['--config-file', path] if path else []
    defaults = [DEFAULT_CONFIG] if not path and os.path.exists(DEFAULT_CONFIG) else []
    conf = cl_conf.parse(argv, default_config_files=defaults)
    logging.setup(conf, 'cinderlike')
    return create_app(conf)


application = init_application()
