"""api/healthcheck/render: the Accept negotiation is webob's, the escaping jinja2's and the
bodies oslo.middleware's templates, each compared with the library itself."""

import string

import markupsafe
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oslo_middleware import healthcheck as oslo_healthcheck
from webob import acceptparse

from cinderlike.api.healthcheck import render
from cinderlike.api.healthcheck.plugins import HealthcheckResult


def webob_choice(accept):
    """What oslo.middleware answers in: webob's first acceptable offer, else text/plain."""
    offers = acceptparse.create_accept_header(accept).acceptable_offers(render.OFFERS)
    return offers[0][0] if offers else render.TEXT


ACCEPTS = [
    None, '', 'text/plain', 'text/html', 'application/json', '*/*', 'text/*', 'image/png',
    'application/json;q=0.5, text/html', 'application/json;q=0', 'application/json, text/html',
    'text/html;q=0.9, application/json', 'TEXT/HTML', 'Application/JSON;Q=0.2, image/*',
    'text/html;level=1', 'text/html;level=1, application/json;q=0.1', 'text/*;level=1',
    'text/html;q=0, text/html', 'text/html, text/html;q=0', '*/*;q=0.1, application/json',
    'text/*;q=0.3, text/html;q=0.7, */*;q=0.5', 'text/plain;q=0, */*', ',,, text/html ,',
    'application/json;q=1.000', 'application/json;q=1.001', 'text/html;q=0.1234',
    'application/json ; q=0.5 ; ext=1, text/html;q=0.4', 'text/html;foo="a,b", application/json',
    'text/html;foo="a\\"b";q=0.5, application/json;q=0.4', '*/html', 'text', 'text/',
    'application/json;q=', 'text/html;;', 'text/html, invalid header', 'text/html\t;\tq=0.5',
    'application/json;q=0.5;q=0.9', 'text/plain;charset=utf-8', 'application/*;q=0.9, */*;q=1',
]


@pytest.mark.parametrize('accept', ACCEPTS)
def test_negotiates_as_webob(accept):
    assert render.negotiate(accept) == webob_choice(accept)


_RANGES = st.sampled_from(['text/plain', 'text/html', 'application/json', '*/*', 'text/*',
                           'application/*', 'image/png', 'TEXT/Html', 'text/html;level=1'])
_Q = st.sampled_from(['', ';q=0', ';q=1', ';q=0.5', ';Q=0.25', ';q=0.123', ';q=1.0',
                      ';q=2', ';q=0.5;ext', ' ; q=0.9', ';q=0.5;x="y,z"'])
_JUNK = st.one_of(st.text(alphabet=string.printable + '\x80\xff', max_size=30),
                  st.text(alphabet='textplainhtmjsoc/*;qQ=0.15, \t"\\', max_size=40))


@given(st.lists(st.tuples(_RANGES, _Q), max_size=5),
       st.sampled_from([',', ', ', ' ,', ',,', ',\t']))
def test_negotiates_as_webob_for_generated_headers(elements, separator):
    accept = separator.join(media_range + q for media_range, q in elements)
    assert render.negotiate(accept) == webob_choice(accept)


@given(_JUNK)
def test_negotiates_as_webob_for_any_text(accept):
    assert render.negotiate(accept) == webob_choice(accept)


@given(st.one_of(st.text(), st.integers(), st.tuples(st.integers(), st.integers())))
def test_escapes_as_jinja2(value):
    assert render.escape(value) == str(markupsafe.escape(value))


def test_escapes_quotes_as_jinja2_not_as_html_escape():
    assert render.escape('''<a href="x">it's & more</a>''') == (
        '&lt;a href=&#34;x&#34;&gt;it&#39;s &amp; more&lt;/a&gt;')


def _template(name, **params):
    return oslo_healthcheck._expand_template(getattr(oslo_healthcheck.Healthcheck, name),
                                             params)


RESULTS = [
    [],
    [HealthcheckResult(True, 'OK')],
    [HealthcheckResult(True, 'OK', "Path '/x' was not found"),
     HealthcheckResult(False, '', 'hidden'), HealthcheckResult(False, None),
     HealthcheckResult(False, '<b>down</b> & "out"', "it's <gone>"),
     HealthcheckResult(True, '  padded  ', '')],
    [HealthcheckResult(True, ''), HealthcheckResult(True, 'last')],
]
SERVERS = [
    {'hostname': 'api-1', 'now': '2024-05-06 07:08:09.123456', 'python_version': '3.11.2 '
     '(main, Mar 13 2023) [GCC 12.2.0]', 'platform': 'Linux-6.1-x86_64-with-glibc2.36',
     'gc': {'counts': (293, 10, 5), 'threshold': (700, 10, 10)},
     'threads': ['  File "a.py", line 1, in <module>\n    main()\n', '  File "b.py"\n']},
    {'hostname': None, 'now': 'now', 'python_version': '3 "x"\n[GCC]', 'platform': "p'",
     'gc': {'counts': (1, 2, 3), 'threshold': (4, 5, 6)}, 'threads': []},
    {'hostname': '<h>', 'now': 'now', 'python_version': 'py', 'platform': 'p',
     'gc': {'counts': (0, 0, 0), 'threshold': (1, 1, 1)}, 'threads': ['only one\n']},
]


@pytest.mark.parametrize('results', RESULTS)
@pytest.mark.parametrize('server', SERVERS)
@pytest.mark.parametrize('detailed', [False, True])
def test_html_is_oslo_middleware_s_template_rendered(results, server, detailed):
    described = [{'reason': r.reason, 'details': r.details or '', 'class': 'HealthcheckResult'}
                 for r in results]
    # NOTE(greenthreads): oslo.middleware hands its template the thread stacks as both.
    expected = _template('HTML_RESPONSE_TEMPLATE', healthy=True, results=described,
                         detailed=detailed, greenthreads=server['threads'],
                         **server).strip()
    assert render.html(results, detailed, server=server) == expected


@pytest.mark.parametrize('results', RESULTS)
@pytest.mark.parametrize('detailed', [False, True])
def test_text_is_oslo_middleware_s_template_rendered(results, detailed):
    expected = _template('PLAIN_RESPONSE_TEMPLATE', detailed=detailed,
                         reasons=[r.reason for r in results]).strip()
    assert render.text(results, detailed) == expected
