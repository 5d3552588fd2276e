"""Targets (YNAB's goals) that still need money in a month, in the order to fund them.

Every figure is YNAB's own (`goal_under_funded`, `goal_overall_left`, ...), from the month's
category data: never recomputed. A target is listed when YNAB says it is underfunded that
month (needs more than 0) and it is not snoozed. Internal and hidden categories are left out.

Urgency, in funding order: `due_date` (a target with a date: soonest first), `repeating`
(monthly funding, monthly or weekly needs, debt payments: due again every period),
`other` (a balance to reach some day). Within each, the biggest need first, then by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from tools.logic.budget import group_name, is_shown_in_budget
from tools.ynab.entities import Category
from tools.ynab.snapshot import PlanSnapshot

Urgency = Literal["due_date", "repeating", "other"]
URGENCY_ORDER: tuple[Urgency, ...] = ("due_date", "repeating", "other")
REPEATING_TYPES = frozenset({"MF", "NEED", "DEBT"})


@dataclass(frozen=True, slots=True)
class Underfunded:
    category: Category  # the month's figures
    group: str
    urgency: Urgency

    @property
    def needed(self) -> int:
        return self.category.goal_under_funded or 0


@dataclass(frozen=True, slots=True)
class TargetsInMonth:
    underfunded: tuple[Underfunded, ...]
    with_target: int  # categories with a target this month
    snoozed: int  # of them, snoozed (left out)

    @property
    def needed(self) -> int:
        return sum(item.needed for item in self.underfunded)


def urgency(category: Category) -> Urgency:
    if category.goal_target_date is not None:
        return "due_date"
    if category.goal_type in REPEATING_TYPES:
        return "repeating"
    return "other"


def underfunded_targets(snapshot: PlanSnapshot, month: date) -> TargetsInMonth:
    found = []
    with_target = snoozed = 0
    for category in snapshot.categories.values():
        if not is_shown_in_budget(snapshot, category):
            continue
        figures = snapshot.month_category(month, category.id) or category
        if not figures.goal_type:
            continue
        with_target += 1
        if figures.goal_snoozed_at is not None:
            snoozed += 1
            continue
        if (figures.goal_under_funded or 0) > 0:
            found.append(Underfunded(figures, group_name(snapshot, category), urgency(figures)))
    found.sort(key=_order)
    return TargetsInMonth(tuple(found), with_target, snoozed)


def _order(item: Underfunded) -> tuple:
    due = item.category.goal_target_date or date.max
    return (
        URGENCY_ORDER.index(item.urgency),
        due,
        -item.needed,
        item.category.name.casefold(),
        item.category.id,
    )
