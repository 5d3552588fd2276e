"""Fast inserts of many unsaved model rows (seeding) or of rows' values (copying a plan).

`bulk_create` compiles a statement and prepares every value separately for each batch
(999 parameters at a time on SQLite); with 50,000 transactions that was most of the
seeding time. Here one single-row INSERT is prepared once and run with `executemany`,
values converted by each field's own `get_db_prep_save` (skipped only for field types
whose Python value is already what the database takes). Rows must carry their primary key
unless it is an auto field; no signals are sent, as with `bulk_create`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

from django.db import connections, router
from django.db.models import AutoField, BigAutoField, Field, Model, SmallAutoField

BATCH_SIZE = 5000
# Field types whose Python values the database drivers take as they are.
_PLAIN_TYPES = frozenset(
    {"CharField", "TextField", "BigIntegerField", "IntegerField", "BooleanField", "ForeignKey"}
)
_AUTO_FIELDS = (AutoField, BigAutoField, SmallAutoField)


def insert_rows(model: type[Model], rows: Sequence[Model]) -> None:
    """INSERT every row of `model` (one table, no auto-filled values besides an auto pk)."""
    fields = insertable_fields(model)
    # Given several names, attrgetter gives a tuple (every table inserted here has several columns).
    values = attrgetter(*(field.attname for field in fields))
    insert_values(model, fields, [values(row) for row in rows])


def insertable_fields(model: type[Model]) -> tuple[Field, ...]:
    """The columns `insert_values` fills, in its order: every concrete field but an auto pk."""
    return tuple(field for field in model._meta.concrete_fields if not isinstance(field, _AUTO_FIELDS))


def insert_values(model: type[Model], fields: Sequence[Field], rows: Sequence[tuple[Any, ...]]) -> None:
    """INSERT one row of `model` per tuple of `rows` (Python values of `fields`, in order)."""
    if not rows:
        return
    connection = connections[router.db_for_write(model)]
    converters = [_converter(field, connection) for field in fields]
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    sql = f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} ({columns}) VALUES ({placeholders})"
    with connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH_SIZE):
            cursor.executemany(
                sql,
                [
                    tuple(convert(value) for convert, value in zip(converters, row, strict=True))
                    for row in rows[start : start + BATCH_SIZE]
                ],
            )


def _converter(field: Field, connection: Any) -> Callable[[Any], Any]:
    if field.get_internal_type() in _PLAIN_TYPES:
        return _unchanged
    return lambda value: field.get_db_prep_save(value, connection)


def _unchanged(value: Any) -> Any:
    return value
