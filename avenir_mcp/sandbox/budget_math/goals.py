"""Target (goal) progress of a category in a month.

YNAB returns, per category and month: `goal_under_funded` (still needed this month to stay
on track), `goal_overall_funded` (funded within the current goal period),
`goal_overall_left` (still needed to complete the period's target),
`goal_percentage_complete` (funded / target, whole percent, 0-100) and
`goal_months_to_budget` (months left in the period, this one included). Rules by type
(`carried` = available brought in from last month, `budgeted` = assigned this month):

- MF (monthly funding) and DEBT (monthly payment): the target is assigned every month.
  funded = budgeted; under = target - budgeted; one month to budget.
- TB (target balance, no date): funded = available; under = left = target - available;
  no months to budget (null).
- TBD (target balance by date): months_left = months from this one through the target
  date's month (0 once past). funded = carried + budgeted; this month's share is
  ceil((target - carried) / months_left); under = share - budgeted.
- NEED (plan your spending): the period is goal_cadence x goal_cadence_frequency months
  (1 monthly, 13 yearly, 3-12 every 2-11 months, 14 every 2 years), default monthly.
  A weekly NEED (cadence 2) needs the target once per occurrence of `goal_day` (0 Sunday)
  in the month. With a target date, months_left counts to it; otherwise to the end of the
  period counted from goal_creation_month. "Set aside another" (needs_whole_amount true)
  on a monthly period funds with this month's budgeted only; "refill up to" and longer
  periods fund with carried + budgeted. under = ceil((target - funded before this month)
  / months_left) - budgeted.

Every amount is floored at 0; a target of 0 is 100% complete.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date

from avenir_mcp.sandbox.budget_math.calendar import month_count, month_of
from avenir_mcp.sandbox.budget_math.months import CategoryMonth

# YNAB's goal_cadence values (OpenAPI spec, Category.goal_cadence); 3-12 repeat every 2-11 months.
CADENCE_NONE = 0
CADENCE_MONTHLY = 1
CADENCE_WEEKLY = 2
CADENCE_YEARLY = 13
CADENCE_EVERY_TWO_YEARS = 14


@dataclass(frozen=True)
class Goal:
    goal_type: str | None
    target: int | None
    target_date: date | None = None
    needs_whole_amount: bool | None = None
    cadence: int | None = None
    cadence_frequency: int | None = None
    day: int | None = None
    creation_month: date | None = None


@dataclass(frozen=True)
class GoalProgress:
    under_funded: int | None = None
    overall_funded: int | None = None
    overall_left: int | None = None
    percentage_complete: int | None = None
    months_to_budget: int | None = None


NO_GOAL = GoalProgress()


def goal_progress(goal: Goal, month: date, figures: CategoryMonth) -> GoalProgress:
    """The progress of `goal` in `month`, given the category's figures that month."""
    if not goal.goal_type or goal.target is None:
        return NO_GOAL
    if goal.goal_type in ("MF", "DEBT"):
        return _progress(goal.target, figures.budgeted, figures.budgeted, 1)
    if goal.goal_type == "TB":
        return _progress(goal.target, figures.balance, figures.balance, None, under_from_left=True)
    if goal.goal_type == "TBD":
        left = _months_until(month, goal.target_date)
        return _progress(goal.target, figures.carried + figures.budgeted, figures.budgeted, left)
    return _need(goal, month, figures)


def _need(goal: Goal, month: date, figures: CategoryMonth) -> GoalProgress:
    assert goal.target is not None
    if goal.cadence == CADENCE_WEEKLY:
        target = goal.target * _weekday_count(month, goal.day or 0)
        return _progress(target, figures.budgeted, figures.budgeted, 1)
    period = _period_months(goal.cadence, goal.cadence_frequency)
    if goal.target_date is not None:
        left = _months_until(month, goal.target_date)
    else:
        elapsed = month_count(goal.creation_month or month, month) - 1
        left = period - (max(0, elapsed) % period)
    if period == 1 and goal.target_date is None and goal.needs_whole_amount is not False:
        funded = figures.budgeted
    else:
        funded = figures.carried + figures.budgeted
    return _progress(goal.target, funded, figures.budgeted, left)


def _progress(
    target: int, funded: int, budgeted: int, months_left: int | None, *, under_from_left: bool = False
) -> GoalProgress:
    left = max(0, target - funded)
    if under_from_left:
        under = left
    else:
        still_needed = max(0, target - (funded - budgeted))
        share = -(-still_needed // months_left) if months_left else still_needed
        under = max(0, share - budgeted)
    percent = 100 if target <= 0 else max(0, min(100, funded * 100 // target))
    return GoalProgress(under, funded, left, percent, months_left)


def _months_until(month: date, target_date: date | None) -> int:
    if target_date is None:
        return 1
    return month_count(month, month_of(target_date))


def _period_months(cadence: int | None, frequency: int | None) -> int:
    every = max(1, frequency or 1)
    if cadence in (None, CADENCE_NONE, CADENCE_MONTHLY):
        return every
    if cadence == CADENCE_YEARLY:
        return 12 * every
    if cadence == CADENCE_EVERY_TWO_YEARS:
        return 24
    return cadence - 1 if 3 <= cadence <= 12 else 1


def _weekday_count(month: date, day: int) -> int:
    """How many times the weekday `day` (0 Sunday .. 6 Saturday) falls in `month`."""
    python_weekday = (day - 1) % 7  # Python: 0 Monday .. 6 Sunday
    days = calendar.monthrange(month.year, month.month)[1]
    return sum(1 for d in range(1, days + 1) if month.replace(day=d).weekday() == python_weekday)
