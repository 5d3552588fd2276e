"""`set_category_target`: set, change or remove a category's target, once the person agreed
(docs/tools.md#set_category_target), and its undo (docs/undo.md#set_category_target): the previous target set
again if the target is still as left.

The checks and texts are `tools.logic.targets`; the path (plan read, question, log, request)
is `tools.writes.flow`. One `PATCH /plans/{plan_id}/categories/{category_id}` with
`goal_target` (null removes), `goal_target_date` or `goal_frequency`. The log keeps
`{"category_id", "before", "after", "restore"}`: the targets before and as left (as
`Target.logged()`: kind, amount, date, ...) and the fields that set `before` again, null
when YNAB's API cannot (the row is then not undoable and the preview says so).

The subject is exactly that of docs/confirmation.md#subjects-and-the-fingerprint: the category and the target
fields sent (amount in milliunits, date or frequency), i.e. the arguments. The target now, which the question
shows, is not part of it: the same request with the same arguments is accepted even if the target
moved in YNAB meanwhile, and the log and undo keep the target it really replaced.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import Field

from confirmations.preview import Preview
from mcp_surface.arguments import AmountValue, PlanIdArg, amount_arg, date_arg, id_arg
from mcp_surface.plan_lookup import today
from mcp_surface.presenting import money
from mcp_surface.registry import write_tool
from oplog.models import Operation
from oplog.undo import Conflict, UndoPlan, UndoRecord, item_state, undo_handler
from tools.logic.assigned import AssignedWords
from tools.logic.budget import is_card_payment
from tools.logic.targets import (
    Target,
    TargetRequest,
    TargetSetting,
    request_refusal,
    restore_fields,
    target_from_goal,
    target_of,
    target_setting,
)
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from values.refusal import Refusal
from ynab_client import PlanSnapshot, YnabClient
from ynab_client.snapshot import category_from_row as parsed_category

TOOL = "set_category_target"
CHECK = "Check the category's target with get_category_balances before trying again."


class TargetSet(WriteResult):
    category_id: str = Field(description="The category.")
    category: str = Field(description="Its name (one line, at most 80 characters).")
    before: str = Field(
        description="Its target before, as YNAB shows it: no target, 50.00 monthly, 20.00 weekly, "
        "480.00 yearly, 1200.00 by 2027-06-01, or the amount and YNAB's name of the kind."
    )
    after: str = Field(description="Its target after, in the same words.")
    undoable: bool = Field(
        description="Whether undo_operation can set the target before again (false when YNAB's API "
        "cannot set that kind of target)."
    )


@write_tool(title="Set a category's target", toolset="categories", destructive=True, idempotent=True)
async def set_category_target(
    category_id: Annotated[
        str, Field(description="The category: an id from get_category_balances.", max_length=100)
    ],
    ctx: Context,
    amount: Annotated[
        AmountValue | None,
        Field(
            description='The target amount in currency units (e.g. "1200.00"), more than 0. Alone, it '
            "keeps the target's kind (no target yet: a monthly one). Omit amount, by_date and frequency "
            "together to remove the target."
        ),
    ] = None,
    by_date: Annotated[
        str | None,
        Field(description="Reach the amount by this date, YYYY-MM-DD (today or later).", max_length=40),
    ] = None,
    frequency: Annotated[
        Literal["monthly", "weekly", "yearly"] | None,
        Field(description="Need the amount every month, week or year. Not with by_date."),
    ] = None,
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, TargetSet] | InputRequiredResult:
    """Set, change or remove a category's target (YNAB's goal), after the person agreed.

    An amount alone changes the amount and keeps the kind (a category without a target gets a
    monthly one); with frequency the amount is needed every month, week or year; with by_date
    it is to be reached by that date; nothing at all removes the target. The person is asked
    to confirm (`Set the target of Holidays: no target → 1200.00 by 2027-06-01?`) in their
    client, or you get a confirmation code to return only once they agreed. The same target
    as now changes nothing (nothing_to_do). YNAB's API can set only some kinds of target: when
    the current one is a kind it cannot set (target balance, monthly funding, debt payment,
    snoozed, ...), the preview says undo_operation will not bring it back. Refused: YNAB's
    internal categories, both by_date and frequency, a date or frequency without an amount or
    on a loan's category, a frequency on a credit card payment category, a past date.
    """
    category = id_arg(category_id, what="category")
    request = TargetRequest(
        amount=amount_arg(amount) if amount is not None else None,
        by_date=date_arg(by_date, field="by_date") if by_date is not None else None,
        frequency=frequency,
    )
    refusal = request_refusal(request, today())
    if refusal is not None:
        raise Refusal(refusal)
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=TargetSet,
        build=lambda snapshot: build_change(snapshot, category, request),
        apply=_apply,
    )


def build_change(snapshot: PlanSnapshot, category_id: str, request: TargetRequest) -> Change:
    """The change (subject, preview, result fields, undo data), or nothing to do."""
    setting = target_setting(snapshot, category_id, request)
    words = AssignedWords.of(snapshot)
    name = words.name(setting.category)
    restore = setting.restore
    fields = _fields(snapshot, setting, name, undoable=restore is not None)
    if setting.unchanged:
        return Change.nothing(
            f"Nothing to change: the target of {name} is already {fields['after']}.", fields
        )
    subject = {"category_id": setting.category.id, "fields": setting.sent}
    return Change(
        subject=subject,
        stored_subject=subject,  # a category's target: nothing the log must not keep
        preview=Preview(
            question=_question(words, name, setting.before, setting.after), notes=_notes(words, setting)
        ),
        fields=fields,
        undoable=restore is not None,
        undo_data=TargetChange(setting.category.id, setting.before, setting.after, restore),
        check=CHECK,
    )


def _question(words: AssignedWords, name: str, before: Target, after: Target, *, undo: bool = False) -> str:
    """`Set the target of Holidays: no target → 1200.00 by 2027-06-01?` (`Undo: set …` with `undo`)."""
    verb = "Undo: set" if undo else "Set"
    return f"{verb} the target of {name}: {before.text(words.amount)} → {after.text(words.amount)}?"


def _notes(words: AssignedWords, setting: TargetSetting) -> list[str]:
    if setting.before.recreatable:
        return []
    return [
        f"Note: the current target ({setting.before.text(words.amount)}) is a kind YNAB's API cannot set, "
        "so undo_operation will not bring it back."
    ]


def _fields(snapshot: PlanSnapshot, setting: TargetSetting, name: str, *, undoable: bool) -> dict[str, Any]:
    shown = partial(money, snapshot)
    return {
        "category_id": setting.category.id,
        "category": name,
        "before": setting.before.text(shown),
        "after": setting.after.text(shown),
        "undoable": undoable,
    }


@dataclass(frozen=True)
class TargetChange:
    """set_category_target's undo data: the category's target before and after, and the fields
    that set `before` again (None when YNAB's API cannot). Stored in the operation row as
    `{"category_id", "before": Target.logged(), "after": ..., "restore": {...} | null}`."""

    category_id: str
    before: Target
    after: Target
    restore: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "category_id": self.category_id,
            "before": self.before.logged(),
            "after": self.after.logged(),
            "restore": self.restore,
        }

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> TargetChange:
        before, after = Target.from_logged(stored["before"]), Target.from_logged(stored["after"])
        return cls(stored["category_id"], before, after, stored.get("restore"))


@dataclass(frozen=True)
class TargetPatch:
    """What the undo sends: the category and the fields that set its previous target again."""

    category_id: str
    fields: dict[str, Any] | None  # None only for a target YNAB's API cannot set again (not undoable)


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change[TargetChange]) -> Applied:
    logged = change.undo_data
    assert logged is not None  # build_change always sets it
    category_id = logged.category_id
    answer = await client.patch_category(
        snapshot.plan_id, category_id, change.subject["fields"], check_hint=CHECK
    )
    before = logged.before
    left = _left_by(answer, snapshot, category_id) or logged.after
    restore = restore_fields(before, left) if change.undoable else None
    shown = partial(money, snapshot)
    words = AssignedWords.of(snapshot)
    shift = f"{before.text(words.amount)} → {left.text(words.amount)}"
    lead = f"Set the target of {change.fields['category']}: {shift}."
    return Applied(
        fields={"after": left.text(shown)},
        undo_data=TargetChange(category_id, before, left, restore),
        lead=lead,
    )


def _left_by(answer: dict[str, Any], snapshot: PlanSnapshot, category_id: str) -> Target | None:
    """The target as YNAB's answer gives it (None when the answer does not say)."""
    try:
        category = parsed_category(answer["category"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    current = snapshot.categories.get(category_id)
    card = current is not None and is_card_payment(snapshot, current)
    return target_from_goal(category, card=card)


# --- undo --------------------------------------------------------------------------------------


@undo_handler(TOOL)
class SetCategoryTargetUndo:
    """Sets the previous target again while the target is still as the operation left it."""

    def plan(self, snapshot: PlanSnapshot, op: Operation) -> UndoPlan[TargetPatch]:
        logged = TargetChange.from_json(op.undo_data)
        before, after = logged.before, logged.after
        words = AssignedWords.of(snapshot)
        category = snapshot.categories.get(logged.category_id)
        name = words.name(category, logged.category_id)
        question = _question(words, name, after, before, undo=True)
        if category is None:
            return UndoPlan(
                question=question, conflicts=(Conflict(logged.category_id, name, "it was deleted"),)
            )
        now = target_of(snapshot, category)
        state = item_state(now, before=before, after=after)
        if state == "restore":
            return UndoPlan(question=question, restorable=(TargetPatch(category.id, logged.restore),))
        if state == "already_as_before":
            return UndoPlan(question=question, already_as_before=1)
        reason = (
            f"its target is now {now.text(words.amount)}, "
            f"not the {after.text(words.amount)} the operation set"
        )
        return UndoPlan(question=question, conflicts=(Conflict(category.id, name, reason),))

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, plan: UndoPlan[TargetPatch]
    ) -> UndoRecord:
        (item,) = plan.restorable
        await client.patch_category(snapshot.plan_id, item.category_id, item.fields, check_hint=CHECK)
        return UndoRecord(restored=({"category_id": item.category_id, "target": op.undo_data["before"]},))
