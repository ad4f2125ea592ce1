"""schemathesis over GET /openapi.json against the four daemons on MariaDB and RabbitMQ:
no 5xx, every answer matching its documented schema, no request past its timeout.

Bounded: examples per operation, a time budget and a per-request timeout (below), with a
fixed seed. Seeded rows (a type, QoS specs, a volume with metadata, a snapshot, a posix
backup of the volume) give the fuzzer ids that exist, so it gets past the 404s. Also the raw
HTTP cases only a real server shows: a chunked body, a body shorter than its Content-Length,
CR/LF in a path.
"""

import json
import re
import socket
import subprocess
import urllib.parse
from xml.etree import ElementTree

import pytest

from tests.functional.e2e.stack import BIN, PROJECT, deployed, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.mysql]

EXAMPLES = 10  # per operation and phase
BUDGET = 150  # seconds for the whole run
REQUEST_TIMEOUT = 10  # seconds: an answer later than this is a hang
SEED = 20261201
V = f'/v3/{PROJECT}'
ST = str(BIN / 'st')  # schemathesis's CLI, from the same venv


FILE_BACKEND = 'b1'  # a file volume, which cinder-backup can read, for the seeded backup


def _configure(workdir):
    def configure(stack):
        stack.update_config(FILE_BACKEND, volume_driver='file', target_helper='fake',
                            file_volume_directory=workdir / 'volumes')
        stack.update_config(backup_posix_path=workdir / 'backups')
    return configure


@pytest.fixture(scope='module')
def stack(tmp_path_factory, mysql_server_url, rabbit_url):
    workdir = tmp_path_factory.mktemp('openapi-fuzz')
    with deployed(workdir, server_url=mysql_server_url, transport_url=rabbit_url,
                  configure=_configure(workdir)) as stack:
        yield stack


def _available(stack, kind: str, item_id: str) -> None:
    wait_for(lambda: stack.ok('GET', f'{V}/{kind}s/{item_id}', expect=200)[kind][
        'status'] == 'available', timeout=60, what=f'the seeded {kind}')


def _seed(stack) -> dict[str, str]:
    """Rows for the fuzzer to aim at: {path parameter: value}."""
    vtype = stack.ok('POST', f'{V}/types', {'volume_type': {
        'name': 'fuzz', 'extra_specs': {'volume_backend_name': FILE_BACKEND}}},
        expect=200)['volume_type']
    qos = stack.ok('POST', f'{V}/qos-specs', {'qos_specs': {'name': 'fuzz', 'k': 'v'}},
                   expect=200)['qos_specs']
    volume = stack.ok('POST', f'{V}/volumes', {'volume': {
        'size': 1, 'volume_type': 'fuzz', 'metadata': {'k': 'v'}}}, expect=202)['volume']
    _available(stack, 'volume', volume['id'])
    backup = stack.ok('POST', f'{V}/backups', {'backup': {'volume_id': volume['id']}},
                      expect=202)['backup']
    _available(stack, 'backup', backup['id'])
    _available(stack, 'volume', volume['id'])
    snapshot = stack.ok('POST', f'{V}/snapshots', {'snapshot': {'volume_id': volume['id']}},
                        expect=202)['snapshot']
    return {'path.backup_id': backup['id'], 'path.type_id': vtype['id'],
            'path.specs_id': qos['id'], 'path.volume_id': volume['id'],
            'path.snapshot_id': snapshot['id'],
            'path.key': 'k', 'path.target_project_id': PROJECT,
            'path.class_name': 'default', 'path.alias': 'os-hosts',
            'path.host': f'{stack.host}@b1'}


def test_schemathesis_finds_no_5xx_no_schema_mismatch_and_no_hang(stack, tmp_path):
    config = tmp_path / 'schemathesis.toml'
    config.write_text('[parameters]\n' + ''.join(
        f'"{key}" = {json.dumps(value)}\n' for key, value in _seed(stack).items()))
    report = tmp_path / 'report.xml'
    run = subprocess.run(
        [ST, '--config-file', str(config), 'run', f'{stack.api_url}/openapi.json',
         '--checks', 'not_a_server_error,response_schema_conformance',
         '--phases', 'coverage,fuzzing', '--max-examples', str(EXAMPLES),
         '--max-time', str(BUDGET), '--request-timeout', str(REQUEST_TIMEOUT),
         '--seed', str(SEED), '--no-shrink', '--workers', '2',
         '--header', f'X-Auth-Token: admin:{PROJECT}',
         '--header', 'OpenStack-API-Version: volume 3.71',
         '--report', 'junit', '--report-junit-path', str(report)],
        capture_output=True, text=True, timeout=BUDGET + 300, cwd=tmp_path)
    assert run.returncode == 0, f'{run.stdout[-12000:]}\n{run.stderr[-2000:]}'
    summary = run.stdout[run.stdout.rfind('SUMMARY'):]
    assert 'Failures:' not in summary and 'Errors:' not in summary, summary
    suites = ElementTree.parse(report).getroot().iter('testsuite')
    cases = [(int(s.get('tests')), int(s.get('failures')), int(s.get('errors'))) for s in suites]
    assert sum(c[1] + c[2] for c in cases) == 0, cases
    # Every operation was reached (schemathesis counts one fewer than the document lists).
    selected, total = map(int, re.search(r'Selected: (\d+)/(\d+)', summary).groups())
    tested = int(re.search(r'Tested: (\d+)', summary).group(1))
    assert tested == selected == total >= len(_operations(stack)) - 1, summary
    # The API lived through it.
    assert stack.get('/v3/')[0] == 200
    assert 'Traceback' not in stack.daemons['api'].log()


def _operations(stack) -> list[tuple[str, str]]:
    status, doc = stack.get('/openapi.json')
    assert status == 200
    return [(path, method) for path, item in doc['paths'].items() for method in item]


def _raw(stack, request: bytes, *, close_early=False) -> bytes:
    """Send *request* bytes as they are; the answer's bytes (after closing our side when
    *close_early*, as a client that gave up)."""
    url = urllib.parse.urlparse(stack.api_url)
    with socket.create_connection((url.hostname, url.port), timeout=REQUEST_TIMEOUT) as sock:
        sock.sendall(request)
        if close_early:
            sock.shutdown(socket.SHUT_WR)
        answer = b''
        while chunk := sock.recv(65536):
            answer += chunk
            if b'\r\n\r\n' in answer and b'Connection: close' not in answer and len(
                    answer.split(b'\r\n\r\n', 1)[1]) >= _length(answer):
                break
        return answer


def _length(answer: bytes) -> int:
    for line in answer.split(b'\r\n\r\n', 1)[0].split(b'\r\n'):
        name, _sep, value = line.partition(b':')
        if name.strip().lower() == b'content-length':
            return int(value)
    return 0


def _volume_names(stack) -> list[str]:
    return [v['name'] for v in stack.ok('GET', f'{V}/volumes', expect=200)['volumes']]


def _head(stack, method: str, path: str, **headers) -> bytes:
    lines = [f'{method} {path} HTTP/1.1', f'Host: {urllib.parse.urlparse(stack.api_url).netloc}',
             f'X-Auth-Token: admin:{PROJECT}', 'Content-Type: application/json',
             'Connection: close', *(f'{k}: {v}' for k, v in headers.items())]
    return ('\r\n'.join(lines) + '\r\n\r\n').encode()


def test_gunicorn_reads_a_chunked_body_and_limits_it(stack):
    body = json.dumps({'volume': {'size': 1, 'name': 'chunked'}}).encode()
    chunked = b'%x\r\n%s\r\n0\r\n\r\n' % (len(body), body)
    answer = _raw(stack, _head(stack, 'POST', f'{V}/volumes',
                               **{'Transfer-Encoding': 'chunked'}) + chunked)
    assert answer.startswith(b'HTTP/1.1 202'), answer[:300]
    assert 'chunked' in _volume_names(stack)
    big = json.dumps({'volume': {'size': 1, 'name': 'too-big',
                                 'description': 'x' * 120_000}}).encode()
    parts = b''.join(b'%x\r\n%s\r\n' % (len(big[i:i + 8192]), big[i:i + 8192])
                     for i in range(0, len(big), 8192))
    answer = _raw(stack, _head(stack, 'POST', f'{V}/volumes',
                               **{'Transfer-Encoding': 'chunked'}) + parts + b'0\r\n\r\n')
    assert answer.startswith(b'HTTP/1.1 413'), answer[:300]
    assert b'overLimit' in answer
    assert 'too-big' not in _volume_names(stack)


def test_a_client_that_gives_up_mid_body_creates_nothing(stack):
    body = json.dumps({'volume': {'size': 1, 'name': 'gave-up'}}).encode()
    answer = _raw(stack, _head(stack, 'POST', f'{V}/volumes',
                               **{'Content-Length': str(len(body) + 50)}) + body,
                  close_early=True)
    assert answer.startswith(b'HTTP/1.1 400'), answer[:300]
    assert 'gave-up' not in _volume_names(stack)


def test_crlf_and_nul_in_a_path_never_reach_a_header(stack):
    for path in ('/v3/a%0d%0aSet-Cookie:%20x=1', '/v3/a%00b'):
        lines = [f'GET {path} HTTP/1.1', 'Host: x', 'Connection: close']
        answer = _raw(stack, ('\r\n'.join(lines) + '\r\n\r\n').encode())
        assert answer.startswith(b'HTTP/1.1 204'), answer[:300]
        lines = answer.split(b'\r\n\r\n', 1)[0].split(b'\r\n')
        assert not [line for line in lines if line.lower().startswith(b'set-cookie')]
        (url,) = [line for line in lines
                  if line.lower().startswith(b'x-server-management-url: ')]
        assert url.endswith((b'/v3/a%0D%0ASet-Cookie:%20x=1', b'/v3/a%00b'))
