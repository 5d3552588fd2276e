"""`set_category_target`: set, change or remove a category's target, once the person agreed
(docs/tools.md#set_category_target), and its undo (docs/undo.md#set_category_target): the
previous target set again if the target is still as left.

The checks and texts are `tools.logic.targets`. One `PATCH /plans/{plan_id}/categories/{category_id}`
with `goal_target` (null removes), `goal_target_date` or `goal_frequency`. The log keeps the
targets before and as left, and the fields that set `before` again (`TargetChange`; null when
YNAB's API cannot: the row is then not undoable and the preview says so). The subject is that
of docs/confirmation.md#subjects-and-the-fingerprint: the target now is not part of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import AmountValue, amount_arg, date_arg, id_arg
from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.mcp_surface.presenting import money
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, UndoRecord, item_state
from avenir_mcp.tools.logic.assigned import AssignedWords
from avenir_mcp.tools.logic.budget import is_card_payment
from avenir_mcp.tools.logic.targets import (
    Target,
    TargetRequest,
    TargetSetting,
    request_refusal,
    restore_fields,
    target_from_goal,
    target_of,
    target_setting,
)
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.money import shown_amount
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient
from avenir_mcp.ynab_client.snapshot import category_from_row as parsed_category

CHECK = "Check the category's target with get_category_balances before trying again."


class TargetSetFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

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


class TargetSet(TargetSetFields, WriteResult):
    pass


@dataclass(frozen=True)
class Targeting:
    """set_category_target's arguments, checked: the category and the target asked."""

    category_id: str
    request: TargetRequest


class TargetSubject(Subject):
    """The category and the target fields sent to YNAB (amount in milliunits): all stored."""

    category_id: str
    fields: dict[str, Any]


class TargetChange(Record):
    """set_category_target's undo data: the category's target before and as left (each stored as
    `{"kind", "amount", "by_date", "whole", "ynab_name", "snoozed"}`), and the fields that set
    `before` again (None when YNAB's API cannot)."""

    category_id: str
    before: Target
    after: Target
    restore: dict[str, Any] | None


@dataclass(frozen=True)
class TargetPatch:
    """What the undo sends: the category and the fields that set its previous target again."""

    category_id: str
    fields: dict[str, Any] | None  # None only for a target YNAB's API cannot set again (not undoable)


class SetCategoryTarget(WriteTool[Targeting, TargetSubject, TargetSetFields, TargetChange]):
    """Sets one category's target; undone while the target is still as left (and YNAB's API can
    set the one before)."""

    name = "set_category_target"
    result = TargetSet

    def build(
        self, snapshot: PlanSnapshot, arguments: Targeting
    ) -> Built[TargetSubject, TargetSetFields, TargetChange]:
        setting = target_setting(snapshot, arguments.category_id, arguments.request)
        words = AssignedWords.of(snapshot)
        name = words.name(setting.category)
        restore = setting.restore
        as_result = partial(money, snapshot)
        fields = TargetSetFields(
            category_id=setting.category.id,
            category=name,
            before=setting.before.text(as_result),
            after=setting.after.text(as_result),
            undoable=restore is not None,
        )
        if setting.unchanged:
            return Change.nothing(
                f"Nothing to change: the target of {name} is already "
                f"{setting.after.text(partial(shown_amount, words.currency))}.",
                fields,
            )
        return Change(
            subject=TargetSubject(category_id=setting.category.id, fields=setting.sent),
            preview=Preview(
                question=_question(words, name, setting.before, setting.after), notes=_notes(words, setting)
            ),
            fields=fields,
            undoable=restore is not None,
            undo_data=TargetChange(
                category_id=setting.category.id, before=setting.before, after=setting.after, restore=restore
            ),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[TargetSubject, TargetSetFields, TargetChange],
    ) -> Applied[TargetSetFields]:
        logged, subject = change.undo_data, change.subject
        answer = await client.patch_category(
            snapshot.plan_id, logged.category_id, subject.fields, check_hint=CHECK
        )
        before = logged.before
        left = _left_by(answer, snapshot, logged.category_id) or logged.after
        restore = restore_fields(before, left) if change.undoable else None
        shown = partial(shown_amount, snapshot.settings.currency_format)
        shift = f"{before.text(shown)} → {left.text(shown)}"
        return Applied(
            fields=change.fields.model_copy(update={"after": left.text(partial(money, snapshot))}),
            undo_data=logged.model_copy(update={"after": left, "restore": restore}),
            lead=f"Set the target of {change.fields.category}: {shift}.",
        )

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[TargetPatch]:
        logged = TargetChange.from_stored(op.undo_data)
        before, after = logged.before, logged.after
        words = AssignedWords.of(snapshot)
        category = snapshot.categories.get(logged.category_id)
        name = words.name(category, logged.category_id)
        question = _question(words, name, after, before, undo=True)
        if category is None:
            return Reversal(
                question=question, conflicts=(Conflict(logged.category_id, name, "it was deleted"),)
            )
        now = target_of(snapshot, category)
        state = item_state(now, before=before, after=after)
        if state == "restore":
            return Reversal(question=question, restorable=(TargetPatch(category.id, logged.restore),))
        if state == "already_as_before":
            return Reversal(question=question, already_as_before=1)
        shown = partial(shown_amount, words.currency)
        now_text, left = now.text(shown), after.text(shown)
        reason = f"its target is now {now_text}, not the {left} the operation set"
        return Reversal(question=question, conflicts=(Conflict(category.id, name, reason),))

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[TargetPatch]
    ) -> UndoRecord:
        (item,) = reversal.restorable
        assert item.fields is not None, "a target YNAB's API cannot set again is logged not undoable"
        await client.patch_category(snapshot.plan_id, item.category_id, item.fields, check_hint=CHECK)
        before = TargetChange.from_stored(op.undo_data).stored()["before"]
        return UndoRecord(restored=({"category_id": item.category_id, "target": before},))


def _question(words: AssignedWords, name: str, before: Target, after: Target, *, undo: bool = False) -> str:
    """`Set the target of Holidays: no target → 1200.00 by 2027-06-01?` (`Undo: set …` with `undo`)."""
    verb, shown = "Undo: set" if undo else "Set", partial(shown_amount, words.currency)
    return f"{verb} the target of {name}: {before.text(shown)} → {after.text(shown)}?"


def _notes(words: AssignedWords, setting: TargetSetting) -> list[str]:
    if setting.before.recreatable:
        return []
    current = setting.before.text(partial(shown_amount, words.currency))
    return [
        f"Note: the current target ({current}) is a kind YNAB's API cannot set, "
        "so undo_operation will not bring it back."
    ]


def _left_by(answer: dict[str, Any], snapshot: PlanSnapshot, category_id: str) -> Target | None:
    """The target as YNAB's answer gives it (None when the answer does not say)."""
    try:
        category = parsed_category(answer["category"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    current = snapshot.categories.get(category_id)
    card = current is not None and is_card_payment(snapshot, current)
    return target_from_goal(category, card=card)


@write_tool(
    SetCategoryTarget(),
    title="Set a category's target",
    toolset="categories",
    destructive=True,
    idempotent=True,
)
def set_category_target(
    category_id: Annotated[
        str, Field(description="The category: an id from get_category_balances.", max_length=100)
    ],
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
) -> Targeting:
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
        raise refusal
    return Targeting(category_id=category, request=request)
