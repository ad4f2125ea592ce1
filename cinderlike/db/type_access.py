"""volume_type_projects rows: which projects may use a private volume type (cinderlike-api).

`deleted` is the row id once revoked, so the (type, project, deleted) unique constraint
refuses a second live grant, a concurrent one included, yet allows granting again later.
"""

import sqlalchemy as sa

from cinderlike import exception
from cinderlike.db import conditional, volume_types
from cinderlike.db.models import VolumeTypeProjects, utcnow


def get_projects(db, *, type_id) -> list[str]:
    """Projects with live access to the type, oldest grant first."""
    stmt = (sa.select(VolumeTypeProjects.project_id)
            .where(VolumeTypeProjects.volume_type_id == type_id, VolumeTypeProjects.deleted == 0)
            .order_by(VolumeTypeProjects.id))
    with db.reader() as session:
        return list(session.scalars(stmt))


def _private(db, session, type_id):
    record = volume_types.get(db, type_id=type_id, session=session)
    if record.is_public:
        raise exception.InvalidVolumeType(
            reason='Type access modification is not applicable to public volume type.')


def add(db, *, type_id, project_id) -> None:
    """Grant *project_id* access to the private type.

    :raises VolumeTypeNotFound, InvalidVolumeType: (public type), VolumeTypeAccessExists:
    """
    try:
        with db.writer() as session:
            _private(db, session, type_id)
            session.add(VolumeTypeProjects(volume_type_id=type_id, project_id=project_id))
    except sa.exc.IntegrityError:
        raise exception.VolumeTypeAccessExists(volume_type_id=type_id,
                                               project_id=project_id) from None


def remove(db, *, type_id, project_id) -> None:
    """Revoke *project_id*'s access to the private type.

    :raises VolumeTypeNotFound, InvalidVolumeType: (public type), VolumeTypeAccessNotFound:
    """
    with db.writer() as session:
        _private(db, session, type_id)
        count = conditional.update(
            session, VolumeTypeProjects,
            values={'deleted': VolumeTypeProjects.id, 'deleted_at': utcnow()},
            where=[VolumeTypeProjects.volume_type_id == type_id,
                   VolumeTypeProjects.project_id == project_id, VolumeTypeProjects.deleted == 0])
        if not count:
            raise exception.VolumeTypeAccessNotFound(volume_type_id=type_id,
                                                     project_id=project_id)
