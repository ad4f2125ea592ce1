"""cinderlike-api: the API version document served at / and /v3/."""

import re
import urllib.parse

from cinderlike.api import microversions as mv


def _self_href(base_url: str) -> str:
    # NOTE(href): Cinder strips a trailing /vN from the base and urljoins 'v3' onto it,
    # quirks included (a public_endpoint without a trailing slash loses its last segment).
    base = re.sub('v[1-9]+/?$', '', base_url)
    return urllib.parse.urljoin(base, 'v3').rstrip('/') + '/'


def build(base_url: str) -> dict:
    """{"versions": [v3.0 with min/max microversion and links]}."""
    return {'versions': [{
        'id': 'v3.0',
        'status': 'CURRENT',
        'version': str(mv.MAX_VERSION),
        'min_version': str(mv.MIN_VERSION),
        'updated': mv.UPDATED,
        'links': [
            {'rel': 'describedby', 'type': 'text/html', 'href': 'https://docs.openstack.org/'},
            {'rel': 'self', 'href': _self_href(base_url)},
        ],
        'media-types': [{
            'base': 'application/json',
            'type': 'application/vnd.openstack.volume+json;version=3',
        }],
    }]}
