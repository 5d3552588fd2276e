"""A plan month's figures, as YNAB gives them: per category, the month's totals, utilisation.

Pure functions over a `PlanSnapshot` and a month (the first day of a month); no I/O, no
clock. Every figure is YNAB's own month data (`month_category`, `months[month]`), never
recomputed from transactions, in `int` milliunits. Names are returned as YNAB holds them:
the tool layer makes them safe to show.

Which categories (the rules the read tools share):
- *Budget view* (`budget_categories`): what YNAB's budget screen shows, i.e. every category
  that is neither hidden nor internal, in a group that is neither. Credit card payment
  categories are kept: YNAB shows them in its budget view, in "Credit Card Payments".
- *Overspent* (`overspent_categories`): every category but internal ones with available < 0,
  hidden ones included: a hidden category's overspending still comes out of next month's
  Ready to Assign, so the person needs to hear about it. The most overspent first.
- *Spending* (`month_spending`): the month's activity of every category but internal ones
  and credit card payment categories, hidden ones included. A card purchase is activity in
  its spending category and, with the opposite sign, in the card's payment category (money
  set aside to pay the card); YNAB's month `activity` adds both, so the purchase vanishes
  from it. Leaving the payment categories out counts it once. Refunds count against it
  (the figures are net, as YNAB's activity is).
- Display order: group name, then category name (both case-folded), then id. The plan
  export carries no display order, so name order is the stable one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from avenir_mcp.tools.logic.category_groups import CREDIT_CARD_PAYMENTS
from avenir_mcp.values.money import round_half_away_from_zero
from avenir_mcp.ynab_client.snapshot import Category, PlanSnapshot

PERCENT_DECIMALS = 1
UNCATEGORIZED = "Uncategorized"  # YNAB's internal category meaning "no category"


@dataclass(frozen=True, slots=True)
class CategoryMonth:
    """One category's figures for one month (milliunits; YNAB's `budgeted` is `assigned`)."""

    category_id: str
    name: str
    group: str
    assigned: int
    activity: int
    available: int

    @property
    def is_empty(self) -> bool:
        """Nothing assigned, nothing spent or received, nothing available."""
        return self.assigned == 0 and self.activity == 0 and self.available == 0

    @property
    def is_overspent(self) -> bool:
        """Available below zero at the end of the month."""
        return self.available < 0

    @property
    def is_over_budget(self) -> bool:
        """More spent than assigned (utilisation above 100 %); never when nothing is assigned."""
        return self.assigned > 0 and -self.activity > self.assigned


@dataclass(frozen=True, slots=True)
class MonthTotals:
    """A month's totals as YNAB gives them, and its overspent categories."""

    month: date
    income: int
    assigned: int
    activity: int
    spending: int
    ready_to_assign: int
    age_of_money: int | None
    overspent: tuple[CategoryMonth, ...]


def group_name(snapshot: PlanSnapshot, category: Category) -> str:
    """The name of the category's group now (the month data may carry an older one)."""
    group = snapshot.category_groups.get(category.category_group_id)
    if group is not None:
        return group.name
    return category.category_group_name or ""


def is_internal(snapshot: PlanSnapshot, category: Category) -> bool:
    """YNAB's own categories (Ready to Assign, Uncategorized, split), or any in their group."""
    group = snapshot.category_groups.get(category.category_group_id)
    return category.internal or (group is not None and group.internal)


def is_uncategorized(snapshot: PlanSnapshot, category: Category) -> bool:
    """YNAB's internal Uncategorized: a transaction there has, for the person, no category."""
    return is_internal(snapshot, category) and category.name == UNCATEGORIZED


def is_card_payment(snapshot: PlanSnapshot, category: Category) -> bool:
    """A credit card's payment category (in YNAB's Credit Card Payments group)."""
    group = snapshot.category_groups.get(category.category_group_id)
    return group is not None and not group.internal and group.name == CREDIT_CARD_PAYMENTS


def is_shown_in_budget(snapshot: PlanSnapshot, category: Category) -> bool:
    """Neither internal nor hidden, in a group that is not hidden either."""
    group = snapshot.category_groups.get(category.category_group_id)
    hidden = category.hidden or (group is not None and group.hidden)
    return not hidden and not is_internal(snapshot, category)


def display_order(snapshot: PlanSnapshot, category: Category) -> tuple[str, str, str]:
    return (group_name(snapshot, category).casefold(), category.name.casefold(), category.id)


def category_month(snapshot: PlanSnapshot, month: date, category: Category) -> CategoryMonth:
    """`category`'s figures in `month`; all zero when YNAB has no figures for it that month."""
    figures = snapshot.month_category(month, category.id)
    return CategoryMonth(
        category_id=category.id,
        name=category.name,
        group=group_name(snapshot, category),
        assigned=figures.budgeted if figures else 0,
        activity=figures.activity if figures else 0,
        available=figures.balance if figures else 0,
    )


def budget_categories(snapshot: PlanSnapshot, month: date, *, include_empty: bool) -> list[CategoryMonth]:
    """The budget view's categories in `month`, in display order; all-zero ones only if asked."""
    shown = sorted(
        (category for category in snapshot.categories.values() if is_shown_in_budget(snapshot, category)),
        key=lambda category: display_order(snapshot, category),
    )
    figures = [category_month(snapshot, month, category) for category in shown]
    return figures if include_empty else [row for row in figures if not row.is_empty]


def overspent_categories(snapshot: PlanSnapshot, month: date) -> list[CategoryMonth]:
    """Categories (hidden ones too, internal ones never) whose available is below zero,
    the most overspent first, then in display order."""
    ranked = []
    for category in snapshot.categories.values():
        if is_internal(snapshot, category):
            continue
        row = category_month(snapshot, month, category)
        if row.is_overspent:
            ranked.append(((row.available, *display_order(snapshot, category)), row))
    ranked.sort(key=lambda pair: pair[0])
    return [row for _key, row in ranked]


def month_spending(snapshot: PlanSnapshot, month: date) -> int:
    """The month's money out of budget categories, card payment categories left out (see the
    module docstring): negative when more went out than came back."""
    total = 0
    for figures in snapshot.month_categories(month).values():
        category = snapshot.categories.get(figures.id, figures)  # where it stands now, if it still exists
        if not is_internal(snapshot, category) and not is_card_payment(snapshot, category):
            total += figures.activity
    return total


def month_totals(snapshot: PlanSnapshot, month: date) -> MonthTotals:
    """`month`'s income, assigned, activity, spending, Ready to Assign, age of money and
    overspending.

    Raises KeyError when the plan has no such month (callers check the month first).
    """
    totals = snapshot.months[month]
    return MonthTotals(
        month=month,
        income=totals.income,
        assigned=totals.budgeted,
        activity=totals.activity,
        spending=month_spending(snapshot, month),
        ready_to_assign=totals.to_be_budgeted,
        age_of_money=totals.age_of_money,
        overspent=tuple(overspent_categories(snapshot, month)),
    )


def utilisation_pct(activity: int, assigned: int) -> Decimal | None:
    """The share of the assigned amount spent, in percent with one decimal (`Decimal("87.5")`).

    See `utilisation_tenths`; the Decimal is exact (tenths scaled down, never a float).
    """
    tenths = utilisation_tenths(activity, assigned)
    return None if tenths is None else Decimal(tenths).scaleb(-PERCENT_DECIMALS)


def utilisation_tenths(activity: int, assigned: int) -> int | None:
    """−activity ÷ assigned × 100, in tenths of a percent, rounded half away from zero.

    None when nothing (or a negative amount) is assigned: there is no budget to measure
    against. Exact: integer arithmetic only, one rounding at the end. 150 % of the budget
    spent is 1500; money received into the category gives a negative figure.
    """
    if assigned <= 0:
        return None
    scaled = -activity * 100 * 10**PERCENT_DECIMALS
    return round_half_away_from_zero(scaled, assigned)
