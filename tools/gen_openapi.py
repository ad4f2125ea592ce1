"""Write doc/api/openapi.json, the OpenAPI document of cinderlike-api's routes (`make openapi`).

tests/unit/api/test_openapi.py fails while the committed file differs from what this writes.
"""

import pathlib
import sys

from cinderlike import conf as cl_conf
from cinderlike.api import openapi
from cinderlike.api.app import create_app
from cinderlike.db.engine import Database

OUTPUT = pathlib.Path(__file__).resolve().parents[1] / 'doc' / 'api' / 'openapi.json'


def generate() -> str:
    """The document's text, from an app on an empty in-memory database (routes only)."""
    conf = cl_conf.new_conf()
    conf([])
    database = Database('sqlite://')
    try:
        return openapi.render(openapi.document(create_app(conf, db=database).routes))
    finally:
        database.dispose()


def main(argv: list[str]) -> int:
    output = pathlib.Path(argv[0]) if argv else OUTPUT
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(generate())
    print(f'wrote {output}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
