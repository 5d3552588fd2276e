"""A plan of a test's own for the cost of a copy: each kind is seeded once, then copied per test.

Seeding a plan through the ledger or the sandbox's API computes its figures as it goes
(~100 ms for a small household, more under coverage); `sandbox.ledger.copying.copy_plan`
inserts the same rows under fresh ids in about a tenth of that. `copy_of(seed)` runs `seed`
once per process (and per day: seeded plans are dated from today), reads its plan's rows once,
and hands each caller what `seed` returned, renumbered for a new copy of its plan. The
original is never handed out, so no test writes to it and the rows read stay its rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from django.utils import timezone

from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.ledger.copying import PlanCopy, PlanRows, copy_plan, plan_rows
from avenir_mcp.sandbox.models import Plan
from avenir_mcp.sandbox.seeding import seed_demo_plan

Seeded = TypeVar("Seeded")

_originals: dict[tuple[Callable[[], Any], Any, Any], tuple[Any, PlanRows]] = {}


def copy_of(
    seed: Callable[[], Seeded], *, name: str | None = None, currency_format: dict[str, Any] | None = None
) -> Seeded:
    """What `seed()` returns (a `Plan`, or a dataclass holding one and ids in it), for a new
    copy of its plan (named `name`, else as the original): every id in it is the copy's. With
    `currency_format` (YNAB's plan setting) the copy writes its amounts in it: no figure
    depends on it."""
    key = (seed, utc_today(), timezone.localdate())
    if key not in _originals:
        original = seed()
        _originals[key] = (original, plan_rows(_plan_in(original)))
    original, rows = _originals[key]
    copy = copy_plan(rows, name=name)
    if currency_format is not None:
        copy.plan.currency_format = currency_format
        copy.plan.save(update_fields=["currency_format"])
    return _renumbered(original, copy)


def _plan_in(value: Any) -> Plan:
    if isinstance(value, Plan):
        return value
    for field in dataclasses.fields(value):
        inner = getattr(value, field.name)
        if isinstance(inner, Plan) or dataclasses.is_dataclass(inner):
            return _plan_in(inner)
    raise TypeError(f"{type(value).__name__} holds no plan")


def _renumbered(value: Any, copy: PlanCopy) -> Any:
    if isinstance(value, Plan):
        return copy.plan
    if isinstance(value, str):
        return copy.ids.get(value, value)
    if isinstance(value, tuple):
        return tuple(_renumbered(each, copy) for each in value)
    if dataclasses.is_dataclass(value):
        changes = {
            field.name: _renumbered(getattr(value, field.name), copy) for field in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **changes)
    return value


def demo_plan_copy(currency_format: dict[str, Any] | None = None) -> Plan:
    """The demo household (`sandbox.seeding.seed_demo_plan`), a copy of the test's own (in
    `currency_format` if given, else the demo's euros)."""
    return copy_of(seed_demo_plan, currency_format=currency_format)
