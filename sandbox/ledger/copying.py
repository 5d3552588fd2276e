"""A copy of a plan under fresh ids: every row of the plan, its figures and stamps as they are.

A copy is what seeding the same plan again would give, without computing anything: the
rows are read once and inserted with `sandbox.seeding.bulk.insert_rows`, their primary keys
and every reference between them replaced by new ids (YNAB ids are global, so a copy
cannot keep them). The materialised figures (balances, activity, months, age of money) and
the knowledge stamps are copied as they stand, so the copy answers every read and delta
exactly as the original does. Tests use it to give each test a plan of its own for the cost
of a few inserts instead of a seeding.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction
from django.db.models import CharField, ForeignKey, Model

from sandbox import models
from sandbox.models import Plan, new_id
from sandbox.seeding.bulk import insert_rows

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
class PlanCopy:
    plan: Plan
    ids: dict[str, str]
    """The copy's id of each id of the original (accounts, categories, transactions, ...)."""


def copy_plan(source: Plan, *, name: str | None = None, plan_id: str | None = None) -> PlanCopy:
    """A new plan with every row of `source` (its name unless `name`), under fresh ids."""
    ids: defaultdict[str, str] = defaultdict(new_id)
    with transaction.atomic():
        plan = Plan.objects.get(pk=source.pk)
        plan.pk = ids[source.pk] = plan_id or new_id()
        plan.name = name if name is not None else plan.name
        plan.is_default = False  # a copy is nobody's default, and was never opened
        plan.last_used_on = None
        plan.save(force_insert=True)
        for model in PLAN_ROWS:
            rows = list(model.objects.filter(plan_id=source.pk).order_by())
            for row in rows:
                _renumber(row, ids)
            insert_rows(model, rows)
    return PlanCopy(plan=plan, ids=dict(ids))


def _renumber(row: Model, ids: defaultdict[str, str]) -> None:
    for field in row._meta.concrete_fields:
        value = getattr(row, field.attname)
        if value is None:
            continue
        renumbered = (
            (field.primary_key and isinstance(field, CharField))
            or isinstance(field, ForeignKey)
            or field.attname in _ID_COLUMNS
        )
        if renumbered:
            setattr(row, field.attname, ids[value])
