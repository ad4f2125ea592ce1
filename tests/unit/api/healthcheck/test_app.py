"""api/healthcheck: /healthcheck answers as oslo.middleware 8.2.0's Healthcheck app answers
(status, headers and body, compared with the app itself built from the same conf)."""

import json

import pytest
from falcon import testing
from oslo_middleware import exceptions as oslo_exceptions

from cinderlike import exception
from cinderlike.api import healthcheck
from cinderlike.api.app import create_app
from tests.unit.api.healthcheck import compare
from tests.unit.api.healthcheck.compare import Fixed

ACCEPTS = [None, 'text/plain', 'text/html', 'application/json', '*/*',
           'application/json;q=0.5, text/html', 'text/*', 'image/png', 'application/json;q=0',
           'application/json, text/html;q=0.9', 'TEXT/HTML', 'text/html;level=1',
           'text/plain;q=0, */*;q=0.1', 'not a header;;', '']
HEALTHY = [Fixed(reason='database reachable', details='postgresql'), Fixed(reason='OK')]
# A failing check, a reason-less one, and text that HTML must escape.
UNHEALTHY = [Fixed(reason='OK', details="Path '/tmp/x' was not found"),
             Fixed(available=False, reason='<down> & "out"', details="it's <gone>"),
             Fixed(reason='', details='no reason'),
             Fixed(available=False, reason='broker unreachable')]


@pytest.mark.parametrize('detailed', [False, True])
@pytest.mark.parametrize('checks', [[], HEALTHY, UNHEALTHY], ids=['none', 'healthy', 'unhealthy'])
@pytest.mark.parametrize('method', ['GET', 'HEAD', 'POST'])
@pytest.mark.parametrize('accept', ACCEPTS)
def test_answers_as_oslo_middleware(detailed, checks, method, accept):
    conf = compare.new_conf(detailed=detailed)
    ours, theirs = compare.both(conf, checks, method=method, accept=accept)
    assert compare.steady(ours, detailed) == compare.steady(theirs, detailed)


def test_the_status_headers_and_bodies():
    """What the comparisons agree on, written out."""
    conf = compare.new_conf()
    assert compare.call(compare.ours(conf, HEALTHY), compare.environ()) == (
        '200 OK', [('Content-Type', 'text/plain; charset=UTF-8'), ('Content-Length', '21')],
        b'database reachable\nOK')
    assert compare.call(compare.ours(conf, HEALTHY), compare.environ('HEAD')) == (
        '204 No Content', [], b'')
    assert compare.call(compare.ours(conf, UNHEALTHY), compare.environ('HEAD')) == (
        '503 Service Unavailable',
        [('Content-Type', 'text/plain; charset=UTF-8'), ('Content-Length', '0')], b'')
    status, headers, body = compare.call(compare.ours(conf, UNHEALTHY),
                                         compare.environ(accept='application/json'))
    assert (status, headers[0]) == ('503 Service Unavailable',
                                    ('Content-Type', 'application/json'))
    assert json.loads(body) == {'detailed': False, 'reasons': [
        'OK', '<down> & "out"', '', 'broker unreachable']}


def test_detailed_answers_name_each_check():
    conf = compare.new_conf(detailed=True)
    _, _, body = compare.call(compare.ours(conf, UNHEALTHY),
                              compare.environ(accept='application/json'))
    document = json.loads(body)
    assert document['reasons'][1] == {'class': 'HealthcheckResult', 'reason': '<down> & "out"',
                                      'details': "it's <gone>"}
    assert document['reasons'][3]['details'] == ''
    assert {'python_version', 'now', 'platform', 'gc', 'threads', 'greenthreads'} < set(document)
    assert document['threads'] and all('File "' in stack for stack in document['threads'])
    _, _, page = compare.call(compare.ours(conf, UNHEALTHY),
                              compare.environ(accept='text/html'))
    assert b'<TD>it&#39;s &lt;gone&gt;</TD>' in page
    assert b'greenthread(s) active:' in page  # oslo.middleware's thread stacks again


@pytest.mark.parametrize('ranges, remote, answered', [
    (['127.0.0.0/8'], '127.0.0.1', True),
    (['10.0.0.0/8'], '127.0.0.1', False),
    (['10.0.0.0/8', '192.168.1.0/24'], '192.168.1.7', True),
    (['::1/128'], '::1', True),
    (['fd00::/8'], '::1', False),
    (['fd00::/8', '127.0.0.0/8'], 'fd12:3456::1', True),
    (['::/0'], '127.0.0.1', False),  # an IPv4 caller is never in an IPv6 range
    (['0.0.0.0/0'], '::ffff:127.0.0.1', False),
    (['127.0.0.0/8'], None, False),
    (['127.0.0.0/8'], '', False),
    ([], None, True),
])
def test_allowed_source_ranges(ranges, remote, answered):
    """A caller from outside the ranges (or unknown) goes on to the application."""
    conf = compare.new_conf(allowed_source_ranges=ranges)
    ours, theirs = compare.both(conf, HEALTHY, remote=remote)
    assert ours == theirs
    assert (ours[2] != compare.INNER[0]) is answered


@pytest.mark.parametrize('ignore', [False, True])
@pytest.mark.parametrize('header', ['HTTP_X_FORWARDED', 'HTTP_X_FORWARDED_PROTO',
                                    'HTTP_X_FORWARDED_HOST', 'HTTP_X_FORWARDED_FOR',
                                    'HTTP_X_FORWARDED_PREFIX', 'HTTP_FORWARDED', None])
def test_ignore_proxied_requests(ignore, header):
    conf = compare.new_conf(ignore_proxied_requests=ignore)
    headers = {header: 'https'} if header else {}
    ours, theirs = compare.both(conf, HEALTHY, **headers)
    assert ours == theirs
    passed = ignore and header not in (None, 'HTTP_FORWARDED')
    assert (ours[2] == compare.INNER[0]) is passed


def test_an_empty_proxy_header_is_no_proxy():
    conf = compare.new_conf(ignore_proxied_requests=True)
    ours, theirs = compare.both(conf, HEALTHY, HTTP_X_FORWARDED_FOR='')
    assert ours == theirs and ours[0] == '200 OK'


def test_other_paths_go_inward():
    app = compare.ours(compare.new_conf(), HEALTHY)
    for path in ('/', '/v3/', '/healthcheckx', '/health'):
        assert compare.call(app, {**compare.environ(), 'PATH_INFO': path})[2] == b'inner app'
    assert compare.call(app, {**compare.environ(), 'PATH_INFO': '/healthcheck/'})[0] == '200 OK'


def test_disable_by_file_and_enable_by_files_refuse_each_other():
    conf = compare.new_conf(backends=['enable_by_files', 'disable_by_file'])
    with pytest.raises(oslo_exceptions.ConfigInvalid):
        compare.theirs(conf)
    with pytest.raises(exception.HealthcheckConfigInvalid,
                       match='`enable_by_files` plugin and `disable_by_file` plugin should '
                             'not be enabled at the same time'):
        healthcheck.Healthcheck(conf)


def test_a_source_range_that_is_no_network_refuses_to_start():
    conf = compare.new_conf(allowed_source_ranges=['10.0.0.1/8'])
    with pytest.raises(ValueError):
        compare.theirs(conf)
    with pytest.raises(ValueError):
        healthcheck.Healthcheck(conf)


def test_a_caller_address_that_is_no_address_fails_as_oslo_middleware_does():
    conf = compare.new_conf(allowed_source_ranges=['10.0.0.0/8'])
    with pytest.raises(ValueError):
        compare.call(compare.theirs(conf), compare.environ(remote='unix:/run/api.sock'))
    with pytest.raises(ValueError):
        compare.call(compare.ours(conf), compare.environ(remote='unix:/run/api.sock'))


def test_the_api_serves_it_before_auth_and_leaves_the_rest(conf, db):
    """create_app: the database check on the app's engine, the fake:// broker in process."""
    conf.set_override('auth_strategy', 'noauth')
    conf.set_override('transport_url', 'fake://')
    conf.set_override('detailed', True, group='healthcheck')
    client = testing.TestClient(create_app(conf, db=db))
    resp = client.simulate_get('/healthcheck', headers={'Accept': 'application/json'})
    assert resp.status_code == 200
    assert [(r['reason'], r['details']) for r in resp.json['reasons']] == [
        ('database reachable', 'sqlite'), ('fake transport (in process)', '')]
    conf.set_override('allowed_source_ranges', ['10.0.0.0/8'], group='healthcheck')
    client = testing.TestClient(create_app(conf, db=db))
    resp = client.simulate_get('/healthcheck', remote_addr='127.0.0.1')
    assert (resp.status_code, list(resp.json)) == (404, ['itemNotFound'])
