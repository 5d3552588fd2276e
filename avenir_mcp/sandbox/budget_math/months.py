"""Month figures: assigned, activity, available with carry-over, income, Ready to Assign.

Inputs are per category and month: `budgeted` (assigned, set through the API) and
`activity` (materialised from transactions, see `effects`). Rules, in milliunits:

- available(c, m) = carried(c, m) + budgeted(c, m) + activity(c, m), where
  carried(c, m) = available(c, m-1) when positive, else 0. A negative available is
  overspending: it does not carry into the category; it is taken from Ready to Assign in
  the next month instead. (The sandbox treats all overspending this way, also on cards.)
- income(m) = activity of "Inflow: Ready to Assign" in m (inflows categorised to it).
- budgeted(m) = sum of budgeted over every other category; activity(m) = sum of their
  activity (credit card payment categories included, so card spending nets to zero there
  until the card is paid).
- to_be_budgeted(m) (Ready to Assign) = to_be_budgeted(m-1) + income(m) - budgeted(m)
  - overspending(m-1), starting from 0 before the plan's first month. Money assigned in a
  later month does not lower an earlier month's figure.
- "Inflow: Ready to Assign" itself shows budgeted 0, activity = income(m), and
  available = to_be_budgeted(m).

Everything before the first month a category has a row is 0; months are the plan's months.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

Amounts = Mapping[date, tuple[int, int]]  # month -> (budgeted, activity)


class CategoryMonth(NamedTuple):
    budgeted: int
    activity: int
    balance: int
    carried: int  # what came in from the month before (never negative)


@dataclass
class MonthFigures:
    month: date
    income: int = 0
    budgeted: int = 0
    activity: int = 0
    to_be_budgeted: int = 0
    categories: dict[str, CategoryMonth] = field(default_factory=dict)


def plan_months(
    months: Sequence[date],
    category_ids: Iterable[str],
    amounts: Mapping[date, Mapping[str, tuple[int, int]]],
    ready_to_assign_id: str,
) -> list[MonthFigures]:
    """Every month's figures following the module's rules. `amounts` is month -> category ->
    (budgeted, activity). A category whose four figures are all 0 in a month is left out of
    that month's `categories` (read it as zeros)."""
    categories = [c for c in category_ids if c != ready_to_assign_id]
    available = dict.fromkeys(categories, 0)
    result: list[MonthFigures] = []
    ready, overspent_before, nothing = 0, 0, (0, 0)
    for month in months:
        figures, in_month = MonthFigures(month), amounts.get(month, {})
        overspent = 0
        for category_id in categories:
            budgeted, activity = in_month.get(category_id, nothing)
            carried = available[category_id] if available[category_id] > 0 else 0
            balance = available[category_id] = carried + budgeted + activity
            if budgeted or activity or balance or carried:
                figures.categories[category_id] = CategoryMonth(budgeted, activity, balance, carried)
                figures.budgeted += budgeted
                figures.activity += activity
                if balance < 0:
                    overspent -= balance
        figures.income = in_month.get(ready_to_assign_id, nothing)[1]
        ready += figures.income - figures.budgeted - overspent_before
        figures.to_be_budgeted, overspent_before = ready, overspent
        figures.categories[ready_to_assign_id] = CategoryMonth(0, figures.income, ready, 0)
        result.append(figures)
    return result
