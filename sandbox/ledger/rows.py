"""Fetching many rows fast: a `values_list` query run straight on the cursor.

Django's row iteration (chunked fetches, per-row converters) costs about as much as the
query itself on the big lists (50,000 transactions); the database adapter already gives
dates, numbers and booleans as Python values for the columns fetched this way.
"""

from __future__ import annotations

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
