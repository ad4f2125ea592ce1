"""cinderlike-api: transfers rows → Cinder's transfer documents (api/views/transfers.py).

Links name the `os-volume-transfer` collection whichever path was asked, as Cinder's view
builder does; no_snapshots (3.55) and the record details (3.57) follow the microversion.
"""

from cinderlike.api import microversions as mv
from cinderlike.api.views.common import Links, timestamp
from cinderlike.db.models import Transfer

COLLECTION = 'os-volume-transfer'



def summary(transfer: Transfer, *, links: Links) -> dict:
    return {'id': transfer.id, 'volume_id': transfer.volume_id,
            'name': transfer.display_name, 'links': links.item(transfer.id, COLLECTION)}


def _versioned(shown: dict, transfer: Transfer, version) -> dict:
    if version.matches(mv.TRANSFER_WITH_SNAPSHOTS):
        shown['no_snapshots'] = transfer.no_snapshots
    if version.matches(mv.TRANSFER_WITH_HISTORY):
        shown.update(destination_project_id=transfer.destination_project_id,
                     source_project_id=transfer.source_project_id,
                     accepted=transfer.accepted)
    return shown


def detail(transfer: Transfer, *, version, links: Links) -> dict:
    return _versioned({'id': transfer.id, 'created_at': timestamp(transfer.created_at),
                       'name': transfer.display_name, 'volume_id': transfer.volume_id,
                       'links': links.item(transfer.id, COLLECTION)}, transfer, version)


def created(transfer: Transfer, auth_key: str, *, version, links: Links) -> dict:
    """The create response: the only document that ever shows the auth key."""
    return {'transfer': _versioned({
        'id': transfer.id, 'created_at': timestamp(transfer.created_at),
        'name': transfer.display_name, 'volume_id': transfer.volume_id,
        'auth_key': auth_key, 'links': links.item(transfer.id, COLLECTION)}, transfer, version)}


def collection(items: list[dict], *, next_links: list[dict] | None) -> dict:
    """{"transfers": [...], "transfers_links": [next]} (links only when there is a next)."""
    shown: dict = {'transfers': items}
    if next_links:
        shown['transfers_links'] = next_links
    return shown
