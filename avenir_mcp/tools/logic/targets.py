"""Category targets (YNAB's "goals") as the person knows them, and setting one (set_category_target).

Pure functions over a `PlanSnapshot`, amounts in `int` milliunits.

A `Target` is what YNAB's app shows of a category's target, read from the category's goal
fields (`target_of`): its kind, amount, date, "set aside" vs "refill up to", snoozed. Its
text reads as the app shows it (`text`): `no target`, `50.00 monthly`, `20.00 weekly`,
`480.00 yearly`, `1200.00 by 2027-06-01`, other kinds as the amount and YNAB's name for
the kind (`10000.00 Target Category Balance`), `(snoozed)` after a snoozed one.

YNAB's API writes only `goal_target`, `goal_target_date`, `goal_needs_whole_amount` and
`goal_frequency` (monthly, weekly, yearly): it cannot set a target's type, cadence, day or
snooze. So only some targets can be recreated (`Target.recreatable`, docs/undo.md#set_category_target): none,
a plan-your-spending (NEED) target monthly, weekly, yearly or by a date, and a credit card's
monthly payment target. Target balance (with or without a date), monthly funding outside
cards, debt payment, any other cadence and snoozed targets cannot.

`target_setting(snapshot, category_id, request)` checks a request against the plan and
returns the category, the target before, the fields to send and the target as YNAB leaves
it (predicted: the applied write replaces it with YNAB's answer). `restore_fields(before,
left)` are the fields that take a category from `left` back to `before`.

A category "tied to a loan account" is one whose target is YNAB's debt payment (DEBT): the
plan export does not link a category to its loan account otherwise.

Targets still needing money in a month (`underfunded_targets`, for get_underfunded_targets),
in the order to fund them: every figure is YNAB's own (`goal_under_funded`,
`goal_overall_left`, ...), from the month's category data: never recomputed. A target is
listed when YNAB says it is underfunded that month (needs more than 0) and it is not
snoozed. Internal and hidden categories are left out.

Urgency, in funding order: `due_date` (a target with a date: soonest first), `repeating`
(monthly funding, monthly or weekly needs, debt payments: due again every period),
`other` (a balance to reach some day). Within each, the biggest need first, then by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from avenir_mcp.tools.logic.budget import group_name, is_card_payment, is_shown_in_budget
from avenir_mcp.tools.logic.category_edits import changeable_category
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import Category, PlanSnapshot

Kind = Literal["none", "monthly", "weekly", "yearly", "by_date", "card_monthly", "card_by_date", "other"]
Frequency = Literal["monthly", "weekly", "yearly"]
FREQUENCIES: tuple[str, ...] = ("monthly", "weekly", "yearly")

# YNAB's goal_cadence values with a frequency of 1 (OpenAPI spec, Category.goal_cadence).
CADENCE_KINDS: dict[int, Kind] = {1: "monthly", 2: "weekly", 13: "yearly"}
YNAB_NAMES = {
    "TB": "Target Category Balance",
    "TBD": "Target Category Balance by Date",
    "MF": "Monthly Funding",
    "NEED": "Plan Your Spending",
    "DEBT": "Debt Payment",
}
RECREATABLE: frozenset[str] = frozenset({"none", "monthly", "weekly", "yearly", "by_date", "card_monthly"})
NEED_KINDS: frozenset[str] = frozenset({"monthly", "weekly", "yearly", "by_date"})


@dataclass(frozen=True)
class Target:
    """A category's target as the person knows it. `amount` in milliunits (None: no target);
    `by_date` for the dated kinds; `whole` is YNAB's goal_needs_whole_amount (NEED only:
    "set aside another" when true, "refill up to" when false); `ynab_name` names an
    "other" kind as YNAB does."""

    kind: Kind
    amount: int | None = None
    by_date: date | None = None
    whole: bool | None = None
    ynab_name: str | None = None
    snoozed: bool = False

    @property
    def recreatable(self) -> bool:
        """Whether YNAB's API can set this target again (the list of docs/undo.md#set_category_target)."""
        return self.kind in RECREATABLE and not self.snoozed

    def text(self, write_amount: Callable[[int], str]) -> str:
        """As YNAB's app shows it; `write_amount(milliunits)` writes the amount (a result's text
        or a preview's, bound to the plan's currency format)."""
        if self.kind == "none" or self.amount is None:
            return "no target"
        amount = write_amount(self.amount)
        if self.kind in ("monthly", "card_monthly", "weekly", "yearly"):
            shown = f"{amount} {self.kind.removeprefix('card_')}"
        elif self.kind in ("by_date", "card_by_date") and self.by_date is not None:
            shown = f"{amount} by {self.by_date.isoformat()}"
        else:
            shown = f"{amount} {self.ynab_name or 'target'}"
        return f"{shown} (snoozed)" if self.snoozed else shown


NO_TARGET = Target("none")


def target_of(snapshot: PlanSnapshot, category: Category) -> Target:
    """`category`'s target, read from its goal fields."""
    return target_from_goal(category, card=is_card_payment(snapshot, category))


def target_from_goal(category: Category, *, card: bool) -> Target:
    """The target YNAB's goal fields describe (`card`: a credit card payment category)."""
    goal_type, amount = category.goal_type, category.goal_target
    if not goal_type or amount is None:
        return NO_TARGET
    snoozed = category.goal_snoozed_at is not None
    dated = category.goal_target_date
    if goal_type == "NEED":
        whole = category.goal_needs_whole_amount
        cadence, every = category.goal_cadence, category.goal_cadence_frequency
        if cadence in CADENCE_KINDS and every in (1, None):
            return Target(CADENCE_KINDS[cadence], amount, None, whole, snoozed=snoozed)
        if cadence in (0, None) and dated is not None:
            return Target("by_date", amount, dated, whole, snoozed=snoozed)
    if goal_type == "MF" and card:
        kind: Kind = "card_by_date" if dated is not None else "card_monthly"
        return Target(kind, amount, dated, snoozed=snoozed)
    whole = category.goal_needs_whole_amount if goal_type == "NEED" else None
    name = YNAB_NAMES.get(goal_type, goal_type)
    return Target("other", amount, dated, whole, ynab_name=name, snoozed=snoozed)


# --- setting a target -----------------------------------------------------------------------


@dataclass(frozen=True)
class TargetRequest:
    """What the agent asked: `amount` > 0 with at most one of `by_date` and `frequency`, or
    nothing at all (remove the target). Checked by `request_refusal` before any request."""

    amount: int | None
    by_date: date | None
    frequency: Frequency | None

    def fields(self) -> dict[str, Any]:
        """YNAB's SaveCategory fields for this request (`goal_target: null` removes the target)."""
        sent: dict[str, Any] = {"goal_target": self.amount}
        if self.by_date is not None:
            sent["goal_target_date"] = self.by_date.isoformat()
        if self.frequency is not None:
            sent["goal_frequency"] = self.frequency
        return sent


def request_refusal(request: TargetRequest, today: date) -> Refusal | None:
    """What the arguments alone refuse (before any request), for the caller to raise; None when
    they can describe a target."""
    if request.by_date is not None and request.frequency is not None:
        return Refusal("Give by_date or frequency, not both: a YNAB target has a date or repeats, not both.")
    if request.amount is None and (request.by_date is not None or request.frequency is not None):
        return Refusal(
            "A by_date or frequency needs an amount: give the target's amount too "
            "(nothing at all removes the target)."
        )
    if request.amount is not None and request.amount <= 0:
        return Refusal(
            "amount must be more than 0; to remove the target, give no amount, by_date or frequency."
        )
    if request.by_date is not None and request.by_date < today:
        shown = request.by_date.isoformat()
        return Refusal(f"by_date {shown} is in the past: give today ({today.isoformat()}) or later.")
    return None


@dataclass(frozen=True)
class TargetSetting:
    """A category's target as it is (`before`) and as the request leaves it (`after`, predicted),
    with the fields sent and those that put `before` back (None when YNAB cannot)."""

    category: Category
    before: Target
    after: Target
    sent: dict[str, Any]

    @property
    def unchanged(self) -> bool:
        return self.before == self.after

    @property
    def restore(self) -> dict[str, Any] | None:
        return restore_fields(self.before, self.after) if self.before.recreatable else None


def target_setting(snapshot: PlanSnapshot, category_id: str, request: TargetRequest) -> TargetSetting:
    """The category's target changed as asked, or a `Refusal` saying what to give instead."""
    category = changeable_category(snapshot, category_id)
    card = is_card_payment(snapshot, category)
    before = target_from_goal(category, card=card)
    if request.by_date is not None or request.frequency is not None:
        _refuse_loan_or_card(category, before, request, card)
    return TargetSetting(category, before, predicted(before, request, card=card), request.fields())


def _refuse_loan_or_card(category: Category, before: Target, request: TargetRequest, card: bool) -> None:
    shown = quoted(category.name, 40)
    if category.goal_type == "DEBT":
        raise Refusal(
            f"Category {shown} is tied to a loan account: its target follows the loan's payment, so "
            "YNAB takes no date or frequency for it; give an amount alone."
        )
    if card and request.frequency is not None:
        raise Refusal(
            f"Category {shown} is a credit card payment category: YNAB takes no frequency for it; give "
            "an amount alone (a monthly payment) or with by_date (paid off by that date)."
        )


def predicted(before: Target, request: TargetRequest, *, card: bool) -> Target:
    """The target YNAB leaves after the request (its rules as `sandbox.api.goal_input` applies them)."""
    if request.amount is None:
        return NO_TARGET
    amount = request.amount
    whole = before.whole if before.whole is not None else True  # a NEED keeps "set aside" or "refill"
    if request.frequency is not None:
        return Target(request.frequency, amount, None, whole, snoozed=before.snoozed)
    if request.by_date is not None:
        if card:
            return Target("card_by_date", amount, request.by_date, snoozed=before.snoozed)
        if before.ynab_name in (YNAB_NAMES["TB"], YNAB_NAMES["TBD"]):
            name = YNAB_NAMES["TBD"]
            return Target("other", amount, request.by_date, ynab_name=name, snoozed=before.snoozed)
        return Target("by_date", amount, request.by_date, whole, snoozed=before.snoozed)
    if before.kind == "none":
        return Target("card_monthly", amount) if card else Target("monthly", amount, None, True)
    return Target(before.kind, amount, before.by_date, before.whole, before.ynab_name, before.snoozed)


def restore_fields(before: Target, left: Target) -> dict[str, Any]:
    """The SaveCategory fields that take a category whose target is `left` back to `before`
    (a recreatable kind): as few as possible, so what YNAB cannot set (a target's day) stays."""
    if before.kind == "none":
        return {"goal_target": None}
    fields: dict[str, Any] = {"goal_target": before.amount}
    if before.kind == "card_monthly":
        if left.by_date is not None:
            fields["goal_target_date"] = None
        return fields
    if before.kind == "by_date" and before.by_date is not None:
        fields["goal_target_date"] = before.by_date.isoformat()
    elif before.kind != left.kind:
        fields["goal_frequency"] = before.kind
    if before.whole is not None and (before.kind != left.kind or before.whole != left.whole):
        fields["goal_needs_whole_amount"] = before.whole
    return fields


# --- targets still needing money (get_underfunded_targets) ----------------------------------

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
