"""Fetching rows fast: a `values_list` query run straight on the cursor.

Django's row iteration (chunked fetches, per-row converters) costs about as much as the
query itself on the big lists (50,000 transactions); the database adapter already gives
dates, numbers and booleans as Python values for the columns fetched this way.

On a small plan the opposite holds: building and compiling a query costs ten to twenty
times what the database takes to run it, and every write runs the same few queries again
(its rules, its age of money, its month figures). `PreparedRows` compiles such a query
once per process and database and runs it with each call's values.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import QuerySet


def fetch(rows: QuerySet) -> list[tuple]:
    """The tuples of a `values_list(...)` queryset of plain columns (no JSON fields)."""
    try:
        sql, params = rows.query.get_compiler(rows.db).as_sql()
    except EmptyResultSet:  # e.g. `id__in=[]`: Django knows there is nothing to ask for
        return []
    with connections[rows.db].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


class _Compiled:
    """A prepared query's SQL for one database: parameters, where each argument goes, columns."""

    def __init__(self, rows: QuerySet, markers: tuple[Any, ...]) -> None:
        self.alias = rows.db
        compiler = rows.query.get_compiler(rows.db)
        self.sql, params = compiler.as_sql()
        self.params = list(params)
        self.slots = [(i, markers.index(p)) for i, p in enumerate(self.params) if _is_marker(p, markers)]
        missing = set(range(len(markers))) - {argument for _, argument in self.slots}
        if missing or any(isinstance(m, str) and m in self.sql for m in markers):
            raise ValueError(f"prepared query: argument(s) {sorted(missing)} are not plain SQL parameters")
        self.columns = [select[0] for select in compiler.select[: compiler.col_count]]


def _is_marker(param: Any, markers: tuple[Any, ...]) -> bool:
    return any(type(param) is type(m) and param == m for m in markers)


class PreparedRows:
    """A `values_list` query compiled once per process and database, run with new arguments;
    rows come back as the queryset would give them (Django's converters applied).

        ROLES = PreparedRows(lambda plan_id: Category.objects.filter(plan_id=plan_id).values_list("role"))
        ROLES.fetch(plan.pk)  # [("ready_to_assign",), ...]

    `build(*arguments)` makes the queryset. Each argument must reach the SQL as one
    parameter, unchanged (a string compared with `=`, as ids are; a date, adapted the
    way the database takes dates) and must not change the query's shape: no list for
    `__in`, no None, no `iexact`/`contains` (which escape their value). Compiling checks
    that every argument became a parameter and refuses the query otherwise.

    `plain=True` skips the converters, as `fetch` does, for long lists of plain columns
    (numbers, text, dates: the database adapter already gives them as Python values).
    """

    def __init__(self, build: Callable[..., QuerySet], *kinds: type, plain: bool = False) -> None:
        self._build = build
        self._kinds = kinds or (str,)
        self._plain = plain
        self._compiled: _Compiled | None = None  # one database (alias, vendor) per process

    def fetch(self, *arguments: str | date) -> list[tuple]:
        if len(arguments) != len(self._kinds):
            raise TypeError(f"prepared query takes {len(self._kinds)} argument(s), got {len(arguments)}")
        compiled = self._compile()
        connection = connections[compiled.alias]
        params = list(compiled.params)
        for slot, argument in compiled.slots:
            params[slot] = _adapt(connection, arguments[argument])
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if self._plain:
            return rows
        converters = [
            (i, (*connection.ops.get_db_converters(column), *column.get_db_converters(connection)), column)
            for i, column in enumerate(compiled.columns)
        ]
        converters = [(i, functions, column) for i, functions, column in converters if functions]
        if not converters:
            return rows
        converted = []
        for row in rows:
            values = list(row)
            for i, functions, column in converters:
                for function in functions:
                    values[i] = function(values[i], column, connection)
            converted.append(tuple(values))
        return converted

    @property
    def alias(self) -> str:
        """The database the query runs on (for `Model.from_db`)."""
        return self._compile().alias

    def _compile(self) -> _Compiled:
        compiled = self._compiled
        if compiled is None:
            markers = tuple(_marker(kind, i) for i, kind in enumerate(self._kinds))
            rows = self._build(*markers)
            compiled = _Compiled(rows, tuple(_adapt(connections[rows.db], m) for m in markers))
            self._compiled = compiled  # two threads compiling at once make the same SQL
        return compiled


def _marker(kind: type, index: int) -> str | date:
    """A value no real argument has, standing for argument `index` while the query compiles
    (with the characters LIKE escapes, so a lookup that escapes its value is refused)."""
    if kind is date:
        return date(1, 1, 1 + index)
    return f"\x00prepared argument {index} %_\\\x00"


def _adapt(connection: Any, value: str | date) -> Any:
    return connection.ops.adapt_datefield_value(value) if isinstance(value, date) else value
