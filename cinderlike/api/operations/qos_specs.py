"""cinderlike-api: QoS specs rules (Cinder's spec string checks and consumers) and their
`qos_specs.*` notifications, publisher `QoSSpecs.<host>`.

Each change is one db/ call; the info notification follows it, and a refusal sends the error
notification Cinder's controller sends for it. Datetimes in the payloads are oslo's
PERFECT_TIME_FORMAT, as Cinder's JSON serializer writes them: the views' timestamp.
"""

from oslo_utils import strutils

from cinderlike import exception, rpc
from cinderlike.api.views.common import timestamp
from cinderlike.db import qos_specs as db_qos
from cinderlike.db.models import utcnow

# NOTE(consumer): Cinder's message prints its QoSConsumerField, whose str() is this.
_CONSUMERS_TEXT = ("QoSConsumerValues(default=<class "
                   "'oslo_versionedobjects.fields.UnspecifiedDefault'>,nullable=False,"
                   f"valid_values={db_qos.CONSUMERS!r})")


class Notifier:
    """Cinder's `QoSSpecs.<host>` publisher."""

    def __init__(self, conf):
        self._notifier = rpc.get_notifier(conf, publisher_id=f'QoSSpecs.{conf.host}')

    def info(self, ctx, event: str, **payload) -> None:
        self._notifier.info(ctx, event, payload)

    def error(self, ctx, event: str, err, **ident) -> None:
        self._notifier.error(ctx, event, dict(ident, error_message=str(err)))


def _check_strings(specs: dict) -> None:
    """Cinder's validate_dictionary_string_length: keys 1-255, values up to 255 or null.

    :raises InvalidInput:
    """
    for key, value in specs.items():
        checks = [(key, f'Key "{key}"', 1)]
        if value is not None:
            checks.append((value, f'Value for key "{key}"', 0))
        for text, what, minimum in checks:
            try:
                strutils.check_string_length(text, name=what, min_length=minimum,
                                             max_length=255)
            except (TypeError, ValueError) as err:
                raise exception.InvalidInput(reason=str(err)) from None


def _consumer(value) -> str:
    """A consumer of Cinder's three; None means the default (back-end), as Cinder's field.

    :raises InvalidQoSSpecs:
    """
    if value is None:
        return db_qos.DEFAULT_CONSUMER
    if value not in db_qos.CONSUMERS:
        raise exception.InvalidQoSSpecs(
            reason=f'Valid consumer of QoS specs are: {_CONSUMERS_TEXT}')
    return value


def create(db, notifier, ctx, *, name, specs: dict) -> db_qos.QoSSpecsRecord:
    """:raises InvalidInput:, InvalidQoSSpecs:, QoSSpecsExists:"""
    _check_strings(specs)
    values = dict(specs)
    # NOTE(consumer): a null consumer is the default one; Cinder would also store it as a
    # second `consumer` row and then show either of the two.
    consumer = values.pop('consumer', None)
    try:
        record = db_qos.create(db, name=name, consumer=_consumer(consumer), specs=values)
    except (exception.InvalidQoSSpecs, exception.QoSSpecsExists) as err:
        notifier.error(ctx, 'qos_specs.create', err, name=name)
        raise
    # NOTE(created_at): Cinder's object has no created_at yet when it notifies, so None.
    notifier.info(ctx, 'qos_specs.create', name=name, created_at=None, specs=specs)
    return record


def update(db, notifier, ctx, *, specs_id, specs: dict) -> None:
    """Set the keys (`consumer` among them; null is the default consumer).

    :raises QoSSpecsNotFound:, InvalidQoSSpecs:
    """
    values = dict(specs)
    try:
        record = db_qos.get(db, specs_id=specs_id)
        if 'consumer' in values:
            values['consumer'] = _consumer(values['consumer'])
        db_qos.update(db, specs_id=specs_id, specs=values)
    except (exception.QoSSpecsNotFound, exception.InvalidQoSSpecs) as err:
        notifier.error(ctx, 'qos_specs.update', err, id=specs_id)
        raise
    notifier.info(ctx, 'qos_specs.update', id=specs_id, created_at=timestamp(record.created_at),
                  updated_at=timestamp(utcnow()), specs=specs)


def delete(db, notifier, ctx, *, specs_id, force: bool) -> None:
    """:raises QoSSpecsNotFound:, Invalid: 'Qos specs still in use.' (without *force*)"""
    try:
        record = db_qos.destroy(db, specs_id=specs_id, force=force)
    except exception.QoSSpecsNotFound as err:
        notifier.error(ctx, 'qos_specs.delete', err, id=specs_id)
        raise
    except exception.QoSSpecsInUse as err:
        notifier.error(ctx, 'qos_specs.delete', err, id=specs_id)
        raise exception.Invalid('Qos specs still in use.') from None
    notifier.info(ctx, 'qos_specs.delete', id=specs_id, created_at=timestamp(record.created_at),
                  deleted_at=timestamp(utcnow()))


def delete_keys(db, notifier, ctx, *, specs_id, keys) -> None:
    """:raises QoSSpecsNotFound:, QoSSpecsKeyNotFound: (the keys before it are deleted)"""
    try:
        record = db_qos.delete_keys(db, specs_id=specs_id, keys=keys)
    except exception.NotFound as err:
        notifier.error(ctx, 'qos_specs.delete_keys', err, id=specs_id)
        raise
    notifier.info(ctx, 'qos_specs.delete_keys', id=specs_id,
                  created_at=timestamp(record.created_at), updated_at=timestamp(record.updated_at))


def associations(db, notifier, ctx, *, specs_id) -> list[db_qos.Association]:
    """:raises QoSSpecsNotFound:"""
    try:
        record = db_qos.get(db, specs_id=specs_id)
        types = db_qos.associations(db, specs_id=specs_id)
    except exception.QoSSpecsNotFound as err:
        notifier.error(ctx, 'qos_specs.associations', err, id=specs_id)
        raise
    notifier.info(ctx, 'qos_specs.associations', id=specs_id,
                  created_at=timestamp(record.created_at))
    return types


def _require_type_id(notifier, ctx, *, specs_id, type_id) -> None:
    if not type_id:
        err = exception.Invalid('Volume Type id must not be None.')
        # NOTE(event): Cinder reports this refusal of (dis)associate as qos_specs.delete.
        notifier.error(ctx, 'qos_specs.delete', err, id=specs_id)
        raise err


def associate(db, notifier, ctx, *, specs_id, type_id) -> None:
    """:raises Invalid: no type id; QoSSpecsNotFound:, VolumeTypeNotFound:,
        InvalidVolumeType: the type uses other QoS specs.
    """
    _require_type_id(notifier, ctx, specs_id=specs_id, type_id=type_id)
    try:
        record = db_qos.get(db, specs_id=specs_id)
        db_qos.associate(db, specs_id=specs_id, type_id=type_id)
    except exception.NotFound as err:
        notifier.error(ctx, 'qos_specs.associate', err, id=specs_id)
        raise
    except exception.InvalidVolumeType as err:
        # NOTE(event): Cinder's controller sends this error notification twice.
        for _twice in range(2):
            notifier.error(ctx, 'qos_specs.associate', err, id=specs_id)
        raise
    notifier.info(ctx, 'qos_specs.associate', id=specs_id, type_id=type_id,
                  created_at=timestamp(record.created_at))


def disassociate(db, notifier, ctx, *, specs_id, type_id) -> None:
    """:raises Invalid: no type id; QoSSpecsNotFound:, VolumeTypeNotFound:"""
    _require_type_id(notifier, ctx, specs_id=specs_id, type_id=type_id)
    try:
        record = db_qos.get(db, specs_id=specs_id)
        db_qos.disassociate(db, specs_id=specs_id, type_id=type_id)
    except exception.NotFound as err:
        notifier.error(ctx, 'qos_specs.disassociate', err, id=specs_id)
        raise
    notifier.info(ctx, 'qos_specs.disassociate', id=specs_id, type_id=type_id,
                  created_at=timestamp(record.created_at))


def disassociate_all(db, notifier, ctx, *, specs_id) -> None:
    """:raises QoSSpecsNotFound:"""
    try:
        record = db_qos.get(db, specs_id=specs_id)
        db_qos.disassociate_all(db, specs_id=specs_id)
    except exception.QoSSpecsNotFound as err:
        notifier.error(ctx, 'qos_specs.disassociate_all', err, id=specs_id)
        raise
    notifier.info(ctx, 'qos_specs.disassociate_all', id=specs_id,
                  created_at=timestamp(record.created_at))
