"""cinderlike-api: the bodies of /healthcheck's answers, and the Accept negotiation that picks
one, as oslo.middleware's healthcheck writes them (its jinja2 templates, its JSON) and webob
negotiates, without either."""

import gc
import json
import platform
import re
import socket
import sys
import traceback

from oslo_utils import timeutils

TEXT, HTML, JSON = 'text/plain', 'text/html', 'application/json'
# In oslo.middleware's order of preference; the first when no offer is acceptable.
OFFERS = (TEXT, HTML, JSON)

# NOTE(accept): RFC 7231's Accept grammar, as webob's acceptparse reads it: a header it
# cannot parse accepts every offer, as does no header. The groups of _MEDIA_RANGE are the
# range, its media type parameters and its q-value.
_OWS = '[ \t]*'
_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_QUOTED = r'"(?:[\t !#-\[\]-~\x80-\xff]|\\[\t -~\x80-\xff])*"'
_PARAMETER = f'{_OWS};{_OWS}(?![qQ]=){_TOKEN}=(?:(?:{_TOKEN})|(?:{_QUOTED}))'
_EXTENSION = f'{_OWS};{_OWS}{_TOKEN}(?:=(?:(?:{_TOKEN})|(?:{_QUOTED})))?'
_QVALUE = r'(?:0(?:\.[0-9]{0,3})?)|(?:1(?:\.0{0,3})?)'
_MEDIA_RANGE = (f'({_TOKEN}/{_TOKEN})((?:{_PARAMETER})*)'
                f'(?:{_OWS};{_OWS}[qQ]=({_QVALUE})((?:{_EXTENSION})*))?')
_ACCEPT = re.compile(f'^(?:$)|(?:(?:,|(?:{_MEDIA_RANGE}))'
                     f'(?:{_OWS},(?:{_OWS}{_MEDIA_RANGE})?)*)$')
_MEDIA_RANGES = re.compile(_MEDIA_RANGE)


def negotiate(accept: str | None) -> str:
    """The offer webob's `acceptable_offers(OFFERS)` puts first for the Accept header
    *accept*, or text/plain when it finds none acceptable.

    Each offer takes the q-value of the most specific range that names it (type/subtype
    without parameters, then type/*, then */*; the first of equals), q=0 refuses it, and the
    highest q wins, ties going to the earlier offer.
    """
    if accept is None or _ACCEPT.match(accept) is None:
        return OFFERS[0]
    ranges = [(match[1].lower(), bool(match[2]), float(match[3]) if match[3] else 1.0)
              for match in _MEDIA_RANGES.finditer(accept)]
    best = (0.0, OFFERS[0])
    for offer in OFFERS:
        kind = offer.split('/')[0]
        matched = (0, 0.0)  # (specificity, q-value)
        for media_range, has_parameters, q in ranges:
            if media_range == offer:
                if has_parameters:  # text/html;level=1 names no offer of ours
                    continue
                specificity = 3
            elif media_range == f'{kind}/*':
                specificity = 2
            elif media_range == '*/*':
                specificity = 1
            else:
                continue
            if specificity > matched[0]:
                matched = (specificity, q)
        if matched[1] > best[0]:
            best = (matched[1], offer)
    return best[1]


def escape(value) -> str:
    """jinja2's `|e` (markupsafe): `str(value)` with & < > ' " as entities, the quotes as
    &#39; and &#34; (html.escape writes &#x27; and &quot;)."""
    return (str(value).replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
            .replace("'", '&#39;').replace('"', '&#34;'))


def text(results, detailed: bool) -> str:
    """One reason a line, a falsy one as an empty line, the whole stripped."""
    return '\n'.join(str(result.reason) if result.reason else ''
                     for result in results).strip()


def json_body(results, detailed: bool) -> str:
    if not detailed:
        body = {'reasons': [result.reason for result in results], 'detailed': False}
    else:
        server = server_state()
        body = {'detailed': True, 'python_version': server['python_version'],
                'now': server['now'], 'platform': server['platform'], 'gc': server['gc'],
                'reasons': [_described(result) for result in results],
                'greenthreads': _greenthread_stacks(), 'threads': server['threads']}
    return json.dumps(body, indent=4, sort_keys=True)


def html(results, detailed: bool, *, server: dict | None = None) -> str:
    """oslo.middleware's HTML template, rendered: its line breaks are kept exactly.
    *server* (tests) stands for `server_state()`.

    NOTE(greenthreads): oslo.middleware passes the thread stacks as its greenthreads too, so
    the page lists them twice; kept, as it shows them.
    """
    parts = ['<HTML>\n<HEAD><TITLE>Healthcheck Status</TITLE></HEAD>\n<BODY>\n']
    if detailed:
        server = server or server_state()
        parts.append(_html_server(server))
    parts.append(f'\n<H2>Result of {len(results)} checks:</H2>\n{_TABLE}\n<TBODY>\n<TR>\n')
    parts.append('<TH>\nKind\n</TH>\n<TH>\nReason\n</TH>\n<TH>\nDetails\n</TH>\n' if detailed
                 else '\n<TH>\nReason\n</TH>')
    parts.append('\n</TR>\n')
    for result in map(_described, results):
        if result['reason']:
            parts.append('<TR>\n' + (f'<TD>{escape(result["class"])}</TD>' if detailed else '')
                         + f'\n    <TD>{escape(result["reason"])}</TD>\n'
                         + (f'<TD>{escape(result["details"])}</TD>' if detailed else '')
                         + '\n</TR>')
    parts.append('\n</TBODY>\n</TABLE>\n<HR></HR>\n')
    if detailed:
        parts.append(_html_stacks('greenthread', server['threads'], ruled=True) + '\n'
                     + _html_stacks('thread', server['threads'], ruled=False))
    parts.append('\n</BODY>\n</HTML>')
    return ''.join(parts)


def server_state() -> dict:
    """What the detailed answers show of the server: its host name (None when it has
    none), the time (UTC), Python, the platform, the garbage collector and the threads'
    stacks."""
    try:
        hostname = socket.gethostname()
    except OSError:
        hostname = None
    return {'hostname': hostname, 'now': str(timeutils.utcnow()),
            'python_version': sys.version, 'platform': platform.platform(),
            'gc': {'counts': gc.get_count(), 'threshold': gc.get_threshold()},
            'threads': _thread_stacks()}


_TABLE = '<TABLE bgcolor="#ffffff" border="1">'


def _described(result) -> dict:
    return {'reason': result.reason, 'details': result.details or '',
            'class': type(result).__name__}


def _html_server(server: dict) -> str:
    return ('<H1>Server status</H1>\n'
            + (f'<B>Server hostname:</B><PRE>{escape(server["hostname"])}</PRE>'
               if server['hostname'] else '')
            + f'\n<B>Current time:</B><PRE>{escape(server["now"])}</PRE>'
            + f'\n<B>Python version:</B><PRE>{escape(server["python_version"])}</PRE>'
            + f'\n<B>Platform:</B><PRE>{escape(server["platform"])}</PRE>'
            + '\n<HR></HR>\n<H2>Garbage collector:</H2>'
            + f'\n<B>Counts:</B><PRE>{escape(server["gc"]["counts"])}</PRE>'
            + f'\n<B>Thresholds:</B><PRE>{escape(server["gc"]["threshold"])}</PRE>'
            + '\n<HR></HR>')


def _html_stacks(kind: str, stacks: list[str], *, ruled: bool) -> str:
    if not stacks:
        return ''
    rows = ''.join(f'<TR>\n    <TD><PRE>{escape(stack)}</PRE></TD>\n</TR>' for stack in stacks)
    return (f'<H2>{len(stacks)} {kind}(s) active:</H2>\n{_TABLE}\n<TBODY>\n{rows}'
            '\n</TBODY>\n</TABLE>' + ('\n<HR></HR>' if ruled else ''))


def _thread_stacks() -> list[str]:
    return [''.join(traceback.format_stack(frame))
            for frame in sys._current_frames().values()]


def _greenthread_stacks() -> list[str]:
    """The stack of every greenlet, as oslo.middleware lists them. greenlet is never
    imported for it: if nothing imported it, no greenlet exists."""
    greenlet = sys.modules.get('greenlet')
    if greenlet is None:
        return []
    # NOTE(frame): a greenlet without a frame (the running one, a dead one) shows the current
    # stack, as traceback does for a frame of None.
    return [''.join(traceback.format_stack(thread.gr_frame))
            for thread in gc.get_objects() if isinstance(thread, greenlet.greenlet)]
