"""gunicorn's entry to Keystone: `keystone_wsgi:application` (with --pythonpath tools/keystone).

NOTE(argv): Keystone parses the process's command line with oslo.config when it loads, which
is gunicorn's own under gunicorn; under mod_wsgi or uwsgi it is empty, as here.
"""

import sys

sys.argv = sys.argv[:1]

from keystone.wsgi.api import application  # noqa: E402,F401
