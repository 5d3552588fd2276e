"""The goal (target) fields of a category write, applied as YNAB's API applies them.

- `goal_target` on a category without a goal creates a monthly NEED goal ("MF" on a credit
  card payment category); on one with a goal it changes the target; null removes the goal.
- `goal_target_date` sets the date (a new goal with a date is a NEED by that date). On an
  existing goal (emulator's reading; YNAB does not document it): a NEED becomes a NEED by
  that date, a target balance (TB) a target balance by date (TBD), and monthly funding
  outside cards a NEED by that date; a card's payment target and a TBD keep their kind
  with the new date; null takes the date away.
- `goal_needs_whole_amount` is only for NEED goals.
- `goal_frequency` (monthly, weekly, yearly) replaces the goal with a repeating NEED of
  `goal_target`, which it requires; it cannot be combined with `goal_target_date` nor used
  on a credit card payment category.
- `goal_type`, cadence, day and snooze are not writable (ignored if sent).
"""

from __future__ import annotations

from datetime import date

from avenir_mcp.sandbox.api.fields import MISSING, Body
from avenir_mcp.sandbox.budget_math.calendar import month_of
from avenir_mcp.sandbox.budget_math.goals import CADENCE_MONTHLY, CADENCE_WEEKLY, CADENCE_YEARLY
from avenir_mcp.sandbox.models import Category

CADENCE_OF = {"monthly": CADENCE_MONTHLY, "weekly": CADENCE_WEEKLY, "yearly": CADENCE_YEARLY}


def apply_goal_fields(body: Body, category: Category, today: date) -> None:
    """Apply the goal fields of `body` to `category` (not saved); 400 on a refused combination."""
    target = body.integer("goal_target", nullable=True)
    target_date = body.day("goal_target_date", nullable=True)
    whole = body.boolean("goal_needs_whole_amount", nullable=True)
    frequency = body.choice("goal_frequency", tuple(CADENCE_OF))
    is_card = category.role == Category.ROLE_CREDIT_CARD_PAYMENT
    if frequency is not MISSING:
        _check_frequency(body, target, target_date, is_card)
    if target is None:
        _remove_goal(category)
        return
    if target is not MISSING:
        _set_target(category, target, is_card, today, target_date)
    if target_date is not MISSING and category.goal_type:
        _set_date(category, target_date, is_card)
    if frequency is not MISSING:
        _repeat(category, frequency, today)
    if whole is not MISSING:
        if category.goal_type != "NEED":
            raise body.fail("goal_needs_whole_amount is only supported for NEED goals")
        category.goal_needs_whole_amount = whole


def _check_frequency(body: Body, target: object, target_date: object, is_card: bool) -> None:
    if target in (MISSING, None):
        raise body.fail("goal_frequency requires goal_target")
    if target_date not in (MISSING, None):
        raise body.fail("goal_frequency cannot be combined with goal_target_date")
    if is_card:
        raise body.fail("goal_frequency is not supported for credit card payment categories")


def _remove_goal(category: Category) -> None:
    for field in Category.GOAL_FIELDS:
        setattr(category, field, None)


def _set_target(category: Category, target: int, is_card: bool, today: date, target_date: object) -> None:
    if not category.goal_type:
        category.goal_type = "MF" if is_card else "NEED"
        category.goal_creation_month = month_of(today)
        dated = target_date not in (MISSING, None)
        category.goal_cadence = 0 if dated and not is_card else 1  # a card's payment is monthly
        category.goal_cadence_frequency = None if dated and not is_card else 1
        category.goal_needs_whole_amount = None if is_card else True
    category.goal_target = target


def _set_date(category: Category, target_date: date | None, is_card: bool) -> None:
    category.goal_target_date = target_date
    if target_date is None or is_card:
        return
    if category.goal_type == "TB":
        category.goal_type = "TBD"
    elif category.goal_type in ("NEED", "MF"):
        category.goal_type = "NEED"
        category.goal_cadence, category.goal_cadence_frequency, category.goal_day = 0, None, None
        if category.goal_needs_whole_amount is None:
            category.goal_needs_whole_amount = True


def _repeat(category: Category, frequency: str, today: date) -> None:
    category.goal_type = "NEED"
    category.goal_cadence = CADENCE_OF[frequency]
    category.goal_cadence_frequency = 1
    category.goal_target_date = None
    category.goal_day = (today.isoweekday() % 7) if frequency == "weekly" else None
    category.goal_needs_whole_amount = (
        category.goal_needs_whole_amount if category.goal_needs_whole_amount is not None else True
    )
    category.goal_creation_month = category.goal_creation_month or month_of(today)
