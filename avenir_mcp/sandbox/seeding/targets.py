"""Category targets (YNAB "goals") as seed data, turned into the Category model's goal fields."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from avenir_mcp.sandbox.budget_math.goals import CADENCE_MONTHLY, CADENCE_NONE, CADENCE_YEARLY


@dataclass(frozen=True)
class Target:
    """One category's target as YNAB stores it; `amount` in milliunits.

    goal_type: NEED (plan your spending / refill), TB (target balance), TBD (balance by a
    date), MF (monthly funding), DEBT (debt payment).
    """

    goal_type: str
    amount: int
    cadence: int | None = None
    cadence_frequency: int | None = None
    day: int | None = None
    needs_whole_amount: bool | None = None
    target_date: date | None = None
    snoozed_at: datetime | None = None

    def model_fields(self, creation_month: date) -> dict[str, Any]:
        """The `Category` goal_* fields for this target, created in `creation_month`."""
        return {
            "goal_type": self.goal_type,
            "goal_target": self.amount,
            "goal_cadence": self.cadence,
            "goal_cadence_frequency": self.cadence_frequency,
            "goal_day": self.day,
            "goal_needs_whole_amount": self.needs_whole_amount,
            "goal_target_date": self.target_date,
            "goal_snoozed_at": self.snoozed_at,
            "goal_creation_month": creation_month,
        }


def monthly_need(amount: int, *, day: int | None = None, whole: bool = True) -> Target:
    """ "Set aside" (whole=True) or "refill up to" (whole=False) `amount` every month."""
    return Target("NEED", amount, CADENCE_MONTHLY, 1, day, whole)


def yearly_need(amount: int, due: date) -> Target:
    """Need `amount` once a year, due on `due` (YNAB keeps the next due date)."""
    return Target("NEED", amount, CADENCE_YEARLY, 1, due.day, True, due)


def target_balance(amount: int) -> Target:
    return Target("TB", amount, CADENCE_NONE, None)


def balance_by_date(amount: int, due: date, *, snoozed_at: datetime | None = None) -> Target:
    return Target("TBD", amount, CADENCE_NONE, None, target_date=due, snoozed_at=snoozed_at)


def monthly_funding(amount: int) -> Target:
    return Target("MF", amount, CADENCE_MONTHLY, 1)


def debt_payment(amount: int, *, day: int | None = None) -> Target:
    return Target("DEBT", amount, CADENCE_MONTHLY, 1, day)
