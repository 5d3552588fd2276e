"""A copy of a plan under fresh ids: every row of the plan, its figures and stamps as they are.

A copy is what seeding the same plan again would give, without computing anything: the
rows are read (`plan_rows`) and inserted with `sandbox.seeding.bulk.insert_values`, their
primary keys and every reference between them replaced by new ids (YNAB ids are global, so
a copy cannot keep them). The materialised figures (balances, activity, months, age of
money) and the knowledge stamps are copied as they stand, so the copy answers every read and
delta exactly as the original does. Tests use it to give each test a plan of its own for the
cost of a few inserts instead of a seeding; they read an original's rows once and copy them
again and again (which holds while nothing writes to the original).
"""

from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import CharField, Field, ForeignKey, Model

from avenir_mcp.sandbox import models
from avenir_mcp.sandbox.models import Plan, new_id
from avenir_mcp.sandbox.seeding.bulk import insert_values, insertable_fields

# Every model whose rows belong to one plan (each has a `plan` foreign key), in an order
# where a row's references come first where they can (the database checks them at commit).
PLAN_ROWS: tuple[type[Model], ...] = (
    models.Account,
    models.Payee,
    models.PayeeLocation,
    models.CategoryGroup,
    models.Category,
    models.Month,
    models.MonthCategory,
    models.Transaction,
    models.Subtransaction,
    models.ScheduledTransaction,
    models.ScheduledSubtransaction,
    models.MoneyMovementGroup,
    models.MoneyMovement,
    models.BankTransaction,
)
# Plain columns that hold the id of another row of the same plan.
_ID_COLUMNS = frozenset({"matched_transaction_id"})


@dataclass(frozen=True)
class TableRows:
    """The rows one model holds for a plan, as the values of `fields`."""

    model: type[Model]
    fields: tuple[Field, ...]
    id_columns: tuple[int, ...]
    """The positions in `fields` of the values that are ids of the plan's rows (renumbered)."""
    rows: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class PlanRows:
    """Every row of a plan as read at one moment: what `copy_plan` inserts again."""

    plan: Plan
    tables: tuple[TableRows, ...]


@dataclass(frozen=True)
class PlanCopy:
    plan: Plan
    ids: dict[str, str]
    """The copy's id of each id of the original (accounts, categories, transactions, ...)."""


def plan_rows(source: Plan) -> PlanRows:
    """Every row of `source`, read in one transaction (no write lands between two tables)."""
    tables = []
    with transaction.atomic():
        plan = Plan.objects.get(pk=source.pk)
        for model in PLAN_ROWS:
            fields = insertable_fields(model)
            rows = model.objects.filter(plan_id=plan.pk).order_by().values_list(*(f.attname for f in fields))
            id_columns = tuple(index for index, field in enumerate(fields) if _holds_an_id(field))
            tables.append(TableRows(model=model, fields=fields, id_columns=id_columns, rows=tuple(rows)))
    return PlanRows(plan=plan, tables=tuple(tables))


def copy_plan(source: Plan | PlanRows, *, name: str | None = None, plan_id: str | None = None) -> PlanCopy:
    """A new plan with every row of `source` (its name unless `name`), under fresh ids.

    `source` is a plan (read now) or the rows of one read earlier (`plan_rows`)."""
    with transaction.atomic():
        original = source if isinstance(source, PlanRows) else plan_rows(source)
        ids: defaultdict[str, str] = defaultdict(new_id)
        plan = copy.copy(original.plan)
        plan.pk = ids[original.plan.pk] = plan_id or new_id()
        plan.name = name if name is not None else plan.name
        plan.is_default = False  # a copy is nobody's default, and was never opened
        plan.last_used_on = None
        plan.save(force_insert=True)
        for table in original.tables:
            insert_values(
                table.model, table.fields, [_renumbered(row, table.id_columns, ids) for row in table.rows]
            )
    return PlanCopy(plan=plan, ids=dict(ids))


def _holds_an_id(field: Field) -> bool:
    return (
        (field.primary_key and isinstance(field, CharField))
        or isinstance(field, ForeignKey)
        or field.attname in _ID_COLUMNS
    )


def _renumbered(
    row: tuple[Any, ...], id_columns: tuple[int, ...], ids: defaultdict[str, str]
) -> tuple[Any, ...]:
    values = list(row)
    for index in id_columns:
        if values[index] is not None:
            values[index] = ids[values[index]]
    return tuple(values)
