"""cinderlike-api logs Cinder's two INFO lines per request, under the request's context,
with passwords and tokens in the URL masked."""

import logging

from tests.unit.api.type_fixtures import user


def _records(caplog, client, url, headers):
    with caplog.at_level(logging.INFO, logger='cinderlike.api.middleware'):
        resp = client.simulate_get(url, headers=headers)
    lines = [r.getMessage() for r in caplog.records if r.name == 'cinderlike.api.middleware']
    return resp, lines


def test_each_request_logs_its_url_and_status(keystone_client, caplog):
    resp, lines = _records(caplog, keystone_client, '/v3/p1/os-services', user(project='p1'))
    assert resp.status_code == 403
    assert lines == ['GET http://falconframework.org/v3/p1/os-services',
                     'http://falconframework.org/v3/p1/os-services returned with HTTP 403']


def test_a_secret_in_the_query_is_masked(keystone_client, caplog):
    _resp, lines = _records(caplog, keystone_client,
                            '/v3/p1/volumes?auth_token=s3cr3t&password=hunter2',
                            user(project='p1'))
    assert lines and all('s3cr3t' not in line and 'hunter2' not in line for line in lines)
    assert '***' in lines[0]


def test_a_line_break_in_the_path_cannot_forge_a_log_line(keystone_client, caplog):
    _resp, lines = _records(caplog, keystone_client, '/v3/p1/volumes%0d%0aINFO forged',
                            user(project='p1'))
    assert lines and all('\r' not in line and '\n' not in line for line in lines)
    assert '/v3/p1/volumes%0D%0AINFO%20forged' in lines[0]
