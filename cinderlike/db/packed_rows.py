"""A listing page's rows on MariaDB (and MySQL) as one JSON array per row, decoded in C.

NOTE(pymysql): PyMySQL reads every column of every row in Python, about five calls each: a
detail page of 500 volumes (29 columns) cost 8.3-8.8 ms of the API's CPU in reading alone.
Sent as one `JSON_ARRAY(...)` per row it is one column for PyMySQL and one orjson.loads,
2.8-3.0 ms (measured together on one database). Only columns whose values JSON carries
without loss are packed: strings, integers, booleans (sent as 1/0, or "1"/"0" for an
EXISTS), datetimes (sent as 'YYYY-MM-DD HH:MM:SS[.ffffff]') and JSON (nested as it is); a
page with any other type is read column by column, as on the other databases, whose
drivers decode in C.
"""

import dataclasses
import datetime
import functools
from collections.abc import Callable

import orjson
import sqlalchemy as sa

DIALECTS = ('mysql',)


def _boolean(value) -> bool:
    return bool(int(value))


def _conversion(type_) -> Callable | None:
    """What turns a JSON value of a column of *type_* into what the driver would give
    (None: the value as it is).

    :raises TypeError: a type JSON would not carry faithfully.
    """
    if isinstance(type_, sa.TypeDecorator):
        raise TypeError(f'{type_!r} transforms its values')
    if isinstance(type_, sa.Boolean):
        return _boolean
    if isinstance(type_, sa.DateTime):
        return datetime.datetime.fromisoformat
    if isinstance(type_, (sa.String, sa.Integer, sa.JSON)):
        return None
    raise TypeError(f'{type_!r} is not packed')


@dataclasses.dataclass(frozen=True)
class Packed:
    """The packed select of some columns, and the decoder of its rows."""

    select: sa.Select
    conversions: tuple[tuple[int, Callable], ...]

    def decode(self, text: str) -> list:
        """The row's values, in the columns' order, as the driver would have read them."""
        values = orjson.loads(text)
        for index, convert in self.conversions:
            value = values[index]
            if value is not None:
                values[index] = convert(value)
        return values


@functools.cache
def packed(columns: tuple) -> Packed | None:
    """The packed form of a select of *columns* (columns or unlabelled expressions: a label
    inside JSON_ARRAY() would not render), or None when one of them cannot be packed. Built
    once per column tuple."""
    try:
        conversions = tuple((index, convert) for index, column in enumerate(columns)
                            if (convert := _conversion(column.type)) is not None)
    except TypeError:
        return None
    return Packed(sa.select(sa.func.json_array(*columns)), conversions)
