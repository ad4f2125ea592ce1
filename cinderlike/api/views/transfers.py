"""cinderlike-api: transfers rows → Cinder's transfer documents (api/views/transfers.py).

Links name the `os-volume-transfer` collection whichever path was asked, as Cinder's view
builder does; no_snapshots (3.55) and the record details (3.57) follow the microversion.
"""

import dataclasses
import urllib.parse

from cinderlike.api import microversions as mv
from cinderlike.db.models import Transfer

TIME_FORMAT = '%Y-%m-%dT%H:%M:%S.%f'
COLLECTION = 'os-volume-transfer'


def _time(value):
    return value.strftime(TIME_FORMAT) if value else None


@dataclasses.dataclass(frozen=True)
class Links:
    """Where links point: `<base>/v3/<project>/os-volume-transfer/...` and the bookmark."""

    base: str
    project_id: str

    def item(self, transfer_id: str) -> list[dict]:
        return [
            {'rel': 'self',
             'href': f'{self.base}/v3/{self.project_id}/{COLLECTION}/{transfer_id}'},
            {'rel': 'bookmark',
             'href': f'{self.base}/{self.project_id}/{COLLECTION}/{transfer_id}'},
        ]

    def next(self, params: dict, marker: str) -> list[dict]:
        query = urllib.parse.urlencode(dict(params, marker=marker), doseq=True)
        return [{'rel': 'next',
                 'href': f'{self.base}/v3/{self.project_id}/{COLLECTION}?{query}'}]


def summary(transfer: Transfer, *, links: Links) -> dict:
    return {'id': transfer.id, 'volume_id': transfer.volume_id,
            'name': transfer.display_name, 'links': links.item(transfer.id)}


def _versioned(shown: dict, transfer: Transfer, version) -> dict:
    if version.matches(mv.TRANSFER_WITH_SNAPSHOTS):
        shown['no_snapshots'] = transfer.no_snapshots
    if version.matches(mv.TRANSFER_WITH_HISTORY):
        shown.update(destination_project_id=transfer.destination_project_id,
                     source_project_id=transfer.source_project_id,
                     accepted=transfer.accepted)
    return shown


def detail(transfer: Transfer, *, version, links: Links) -> dict:
    return _versioned({'id': transfer.id, 'created_at': _time(transfer.created_at),
                       'name': transfer.display_name, 'volume_id': transfer.volume_id,
                       'links': links.item(transfer.id)}, transfer, version)


def created(transfer: Transfer, auth_key: str, *, version, links: Links) -> dict:
    """The create response: the only document that ever shows the auth key."""
    return {'transfer': _versioned({
        'id': transfer.id, 'created_at': _time(transfer.created_at),
        'name': transfer.display_name, 'volume_id': transfer.volume_id,
        'auth_key': auth_key, 'links': links.item(transfer.id)}, transfer, version)}


def collection(items: list[dict], *, next_links: list[dict] | None) -> dict:
    """{"transfers": [...], "transfers_links": [next]} (links only when there is a next)."""
    shown: dict = {'transfers': items}
    if next_links:
        shown['transfers_links'] = next_links
    return shown
