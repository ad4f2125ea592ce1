"""default_volume_types rows: a project's own default volume type (API 3.62, cinderlike-api).

The volume create path resolves defaults through `volume_types.get_default_for_project`.
"""

import sqlalchemy as sa

from cinderlike.db import conditional, volume_types
from cinderlike.db.models import DefaultVolumeType, utcnow


def _live():
    return DefaultVolumeType.deleted == sa.false()


def get(db, *, project_id) -> DefaultVolumeType | None:
    """The project's default row, or None."""
    with db.reader() as session:
        return session.scalars(sa.select(DefaultVolumeType).where(
            DefaultVolumeType.project_id == project_id, _live())).first()


def get_all(db) -> list[DefaultVolumeType]:
    """Every project's default, by project id."""
    with db.reader() as session:
        return list(session.scalars(sa.select(DefaultVolumeType).where(_live())
                                    .order_by(DefaultVolumeType.project_id)))


def _write(session, *, project_id, type_id) -> None:
    if not conditional.update(
            session, DefaultVolumeType, values={'volume_type_id': type_id, 'updated_at': utcnow()},
            where=[DefaultVolumeType.project_id == project_id, _live()]):
        session.add(DefaultVolumeType(project_id=project_id, volume_type_id=type_id))
        session.flush()


def set_default(db, *, project_id, type_id) -> DefaultVolumeType:
    """Make *type_id* the project's default, creating or replacing its row.

    The type row is held `for_share` meanwhile, so a concurrent delete of the type either
    finishes first (VolumeTypeNotFound here) or sees this default and refuses.

    :raises VolumeTypeNotFound:
    """
    for attempt in range(2):
        try:
            with db.writer() as session:
                volume_types.get(db, type_id=type_id, session=session, for_share=True)
                _write(session, project_id=project_id, type_id=type_id)
            break
        except sa.exc.IntegrityError:
            # NOTE(race): another request inserted this project's row first; update it.
            if attempt:
                raise
    return get(db, project_id=project_id)


def unset(db, *, project_id) -> None:
    """Forget the project's default (a hard delete, as Cinder); no error when it had none."""
    with db.writer() as session:
        session.execute(sa.delete(DefaultVolumeType).where(
            DefaultVolumeType.project_id == project_id))
