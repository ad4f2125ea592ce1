"""body.py: a collection sent in pieces is byte for byte the document's JSON."""

import json

import falcon
import pytest
from falcon import testing

from cinderlike.api import body


def _sent(doc: dict) -> tuple[bytes, falcon.Response]:
    resp = falcon.Response()
    body.send_collection(resp, doc)
    return b''.join(resp.stream), resp


@pytest.mark.parametrize('count', [0, 1, body.BATCH - 1, body.BATCH, body.BATCH + 1,
                                   3 * body.BATCH + 7])
def test_pieces_join_to_the_documents_json(count):
    items = [{'id': f'v{i}', 'name': 'é"\\', 'size': i, 'tags': [i, None]} for i in range(count)]
    doc = {'volumes': iter(items), 'volumes_links': [{'rel': 'next', 'href': 'h?a=1'}],
           'count': count}
    sent, resp = _sent(doc)
    assert sent == body.dumps(dict(doc, volumes=items))
    assert json.loads(sent)['volumes'] == items
    assert int(resp.content_length) == len(sent)
    assert resp.content_type == falcon.MEDIA_JSON


def test_items_are_encoded_a_batch_at_a_time():
    made = []

    def views():
        for i in range(2 * body.BATCH + 1):
            made.append(i)
            yield {'id': i}

    resp = falcon.Response()
    body.send_collection(resp, {'volumes': views()})
    # the opening, three batches, the closing
    assert len(resp.stream) == 5
    assert [len(json.loads(b'[' + piece.lstrip(b',') + b']')) for piece in resp.stream[1:4]] \
        == [body.BATCH, body.BATCH, 1]
    assert len(made) == 2 * body.BATCH + 1


def test_an_item_past_orjsons_integers_goes_through_the_stdlib():
    sent, _ = _sent({'items': [{'n': 2 ** 70}], 'count': 1})
    assert json.loads(sent) == {'items': [{'n': 2 ** 70}], 'count': 1}


def test_a_wsgi_server_gets_the_length_and_the_whole_body():
    def resource(req, resp):
        body.send_collection(resp, {'volumes': ({'id': i} for i in range(120))})

    app = falcon.App()
    app.add_sink(resource, '/')
    result = testing.TestClient(app).simulate_get('/')
    assert result.headers['content-length'] == str(len(result.content))
    assert [v['id'] for v in result.json['volumes']] == list(range(120))
