"""`move_money`: move an assigned amount from one category to another in a month, once the person
agreed (docs/tools.md#move_money), and its undo (docs/undo.md#move_money): both put back, or neither.

The checks and the words are `tools.logic.assigned`. YNAB has no move request: it is two
PATCHes of month categories, source (− amount) then destination (+ amount), sent by
`tools.writes.assigned_pair.write_pair`, which puts the source back when the second fails or
is lost and not made. The log keeps the month and, source first, each category's assigned
amount before and after (`AssignedUndo`, with what landed when the move did not complete).
The subject is that of docs/confirmation.md#subjects-and-the-fingerprint: the figures the
preview shows are not part of it. A move whose outcome is open is settled here (`settle`,
docs/confirmation.md#when-ynabs-answer-is-lost).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import partial
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import AmountValue, MonthArg, amount_arg, id_arg, month_arg
from avenir_mcp.mcp_surface.plan_lookup import require_month, today
from avenir_mcp.mcp_surface.presenting import money
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.kinds import PREFIX, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Subject
from avenir_mcp.oplog.undo import Reversal, UndoRecord
from avenir_mcp.tools.logic.assigned import (
    AssignedChange,
    AssignedNow,
    AssignedWords,
    assignments_now,
    money_move,
    move_refusal,
)
from avenir_mcp.tools.writes.assigned_pair import AssignedUndo, Pair, Step, write_pair
from avenir_mcp.tools.writes.assigned_undo import move_reversal, put_back
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.money import shown_amount
from avenir_mcp.ynab_client import (
    PlanSnapshot,
    RequestKind,
    UnknownOutcome,
    YnabClient,
    YnabError,
    request_kind,
)

CHECK = (
    "Check both categories' assigned amounts for that month with get_category_balances before trying again."
)


class MovedCategory(BaseModel):
    category_id: str
    name: str = Field(description="The category's name (one line, at most 80 characters).")
    from_amount: str = Field(description="Assigned to it that month before, currency units.")
    to_amount: str = Field(description="Assigned to it that month after, currency units.")
    available_after: str = Field(description="Available that month after the move (negative: overspent).")


class MoneyMovedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    month: str = Field(description="The month, YYYY-MM-01.")
    amount: str = Field(description="The amount moved, currency units (above zero).")
    from_category: MovedCategory = Field(description="The category the money leaves.")
    to_category: MovedCategory = Field(description="The category the money goes to.")


class MoneyMoved(MoneyMovedFields, WriteResult):
    pass


@dataclass(frozen=True)
class Moving:
    """move_money's arguments, checked: the month, two different categories, an amount above 0."""

    month: date
    from_category_id: str
    to_category_id: str
    amount: int


class MoveSubject(Subject):
    """The resolved month, both categories and the amount moved (milliunits): all stored."""

    month: date
    from_category_id: str
    to_category_id: str
    amount: int


class MoveMoney(WriteTool[Moving, MoveSubject, MoneyMovedFields, AssignedUndo]):
    """Moves an assigned amount between two categories; undone when both are still as left (or
    one already back as before); settled from YNAB's state when its outcome is open."""

    name = "move_money"
    result = MoneyMoved

    def build(
        self, snapshot: PlanSnapshot, arguments: Moving
    ) -> Built[MoveSubject, MoneyMovedFields, AssignedUndo]:
        month = require_month(snapshot, arguments.month)
        source, destination, amount = arguments.from_category_id, arguments.to_category_id, arguments.amount
        move = money_move(snapshot, month, source, destination, amount)
        words = AssignedWords.of(snapshot)
        note = words.overspent_note(move.source, move.destination)
        from_name, to_name = words.name(move.source.category), words.name(move.destination.category)
        return Change(
            subject=MoveSubject(
                month=month,
                from_category_id=move.source.category_id,
                to_category_id=move.destination.category_id,
                amount=amount,
            ),
            preview=Preview(
                question=words.move_question(amount, from_name, to_name, month),
                lines=[words.line_of(move.source), words.line_of(move.destination)],
                notes=[note] if note else [],
            ),
            fields=MoneyMovedFields(
                month=month.isoformat(),
                amount=money(snapshot, amount),
                from_category=_moved_category(snapshot, move.source, from_name),
                to_category=_moved_category(snapshot, move.destination, to_name),
            ),
            undo_data=AssignedUndo(month=month, categories=(move.source.logged(), move.destination.logged())),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[MoveSubject, MoneyMovedFields, AssignedUndo],
    ) -> Applied[MoneyMovedFields]:
        logged = change.undo_data
        month, (source, destination) = logged.month, logged.categories
        names = change.fields.from_category.name, change.fields.to_category.name
        pair = Pair(
            plan_id=snapshot.plan_id,
            month=month,
            first=Step(source.category_id, names[0], source.before, source.after),
            second=Step(destination.category_id, names[1], destination.before, destination.after),
            currency=snapshot.settings.currency_format,
            check_hint=CHECK,
            settled_later=True,
            logged=logged,
        )
        await write_pair(client, pair)
        amount = shown_amount(pair.currency, destination.after - destination.before)
        return Applied(lead=f"Moved {amount} from {names[0]} to {names[1]} for {month.isoformat()}.")

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[Step]:
        return move_reversal(snapshot, AssignedUndo.from_stored(op.undo_data))

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[Step]
    ) -> UndoRecord:
        month = AssignedUndo.from_stored(op.undo_data).month
        return await put_back(client, snapshot, month, reversal, check_hint=CHECK)

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement | None:
        """A move whose outcome is open (an answer lost, the process stopped between the two
        writes, or a set-back that could not be sent yet), judged on YNAB's state:

        - half a move (one category as the move left it, the other as before) → that one set
          back, as a rollback (`_set_back`);
        - the source changed since while the destination is as before → left as it is, saying
          what to set in YNAB (`_changed_source`);
        - anything else → None: judged item by item from the reversal (`oplog.settling.judge`).
        """
        logged = AssignedUndo.from_stored(op.undo_data)
        source, destination = assignments_now(snapshot, logged.month, logged.categories)
        words = AssignedWords.of(snapshot)
        states = (source.state, destination.state)
        if states == ("restore", "already_as_before"):
            return await self._set_back(client, snapshot, logged, source, words)
        if states == ("already_as_before", "restore"):  # a lost destination write landed late
            return await self._set_back(client, snapshot, logged, destination, words)
        source_changed = source.state == "conflict" and source.assigned is not None
        if source_changed and destination.state == "already_as_before":
            return self._changed_source(logged, source, words)
        return None

    async def _set_back(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        move: AssignedUndo,
        landed: AssignedNow,
        words: AssignedWords,
    ) -> Settlement:
        """Half of the move is in YNAB (`landed`, the other as before): put it back, as a
        rollback. Answered → `failed`, nothing moved; otherwise the row stays pending and the
        next round tries again (waiting out YNAB's pause after a 429)."""
        logged, month = landed.logged, move.month.isoformat()
        name, amount = words.name(landed.category, logged.category_id), partial(shown_amount, words.currency)
        half = (
            f"{PREFIX} half of the move is in YNAB: {name} is {amount(logged.after)} for {month}, the "
            "other category as before."
        )
        paused = client.sender.pacer.paused_until()
        if paused is not None:
            return Settlement(
                "pending",
                f"{half} YNAB asked to wait (429); {name} is set back to {amount(logged.before)} after "
                f"{paused:%H:%M} UTC.",
                "part",
                final=False,
            )
        try:
            with request_kind(RequestKind.ROLLBACK):  # never refused by the pacer
                await client.patch_month_category(
                    snapshot.plan_id, move.month, logged.category_id, logged.before, check_hint=CHECK
                )
        except UnknownOutcome:
            said = f"{half} Setting {name} back got no answer; the next round reads it back."
            return Settlement("pending", said, "part", final=False)
        except YnabError as failed:
            said = f"{half} Setting {name} back failed ({failed.message}); it is tried again."
            return Settlement("pending", said, "part", final=False)
        record = move.model_copy(update={"outcome": "nothing_moved", "landed": (), "unsure": ()})
        said = (
            f"{PREFIX} nothing moved: half of the move had landed ({name} at {amount(logged.after)}), "
            f"and {name} was set back to {amount(logged.before)}; both categories are as before."
        )
        return Settlement("failed", said, "none", undo_data=record)

    def _changed_source(self, move: AssignedUndo, source: AssignedNow, words: AssignedWords) -> Settlement:
        """The source changed since, the destination as before: left as it is. `failed` when the
        source's write is known to have landed, else `unknown`; either way naming the amount to
        set in YNAB to put the move back (what it holds now plus the amount moved)."""
        logged, now, month = source.logged, source.assigned or 0, move.month.isoformat()
        name, amount = words.name(source.category, logged.category_id), partial(shown_amount, words.currency)
        moved = logged.before - logged.after
        put_back = f"set {name} for {month} to {amount(now + moved)} in YNAB"
        if logged.category_id in move.landed:
            said = (
                f"{PREFIX} half of the move was in YNAB, but {name} changed since (now {amount(now)}, "
                f"not {amount(logged.after)}), so it was left as it is. To put the move back, "
                f"{put_back} (what it holds now plus the {amount(moved)} the move took); the other "
                "category is as before."
            )
            half_done = move.model_copy(update={"outcome": "half_done"})
            return Settlement("failed", said, "part", undo_data=half_done)
        said = (
            f"{PREFIX} YNAB cannot tell whether the move's first change landed: {name} is now "
            f"{amount(now)} (neither {amount(logged.before)} nor {amount(logged.after)}) "
            f"and the other category is as before. If it had landed, {put_back} to put the move back."
        )
        return Settlement("unknown", said, "unsure")


def _moved_category(snapshot: PlanSnapshot, change: AssignedChange, name: str) -> MovedCategory:
    return MovedCategory(
        category_id=change.category_id,
        name=name,
        from_amount=money(snapshot, change.before),
        to_amount=money(snapshot, change.after),
        available_after=money(snapshot, change.available_after),
    )


FromCategoryArg = Annotated[
    str, Field(description="The category the money leaves: an id from get_category_balances.", max_length=100)
]
ToCategoryArg = Annotated[
    str,
    Field(description="The category the money goes to: an id from get_category_balances.", max_length=100),
]


@write_tool(
    MoveMoney(),
    title="Move money between categories",
    toolset="categories",
    destructive=True,
    idempotent=False,
)
def move_money(
    month: MonthArg,
    from_category_id: FromCategoryArg,
    to_category_id: ToCategoryArg,
    amount: Annotated[
        AmountValue,
        Field(
            description='The amount to move, in currency units, above zero (e.g. "30.00"); '
            "at most 3 decimals."
        ),
    ],
) -> Moving:
    """Move assigned money from one category to another in a month, after the person agreed.

    As in YNAB's own "move money": the source's assigned amount goes down by `amount` and the
    destination's goes up by it; Ready to Assign does not change. Leaving the source
    overspent is allowed, and the preview shows it. To set one category's budget to a total,
    use set_category_budget; to fund from Ready to Assign, raise the category's amount there.
    The person is asked to confirm (`Move 30.00 from Tennis to Restaurants for 2026-09-01?`
    with both categories before → after) in their client, or you get a confirmation code to
    return only once they agreed. YNAB makes it two changes: if the second fails, the first
    is put back and nothing moves; the result then says exactly what YNAB holds. Refused: the
    same category twice, YNAB's internal categories, months outside the plan, amount ≤ 0.
    undo_operation with the operation id moves it back if both are still as left.
    """
    moving = Moving(
        month=month_arg(month, today()),
        from_category_id=id_arg(from_category_id, what="category"),
        to_category_id=id_arg(to_category_id, what="category"),
        amount=amount_arg(amount),
    )
    refusal = move_refusal(moving.from_category_id, moving.to_category_id, moving.amount)
    if refusal is not None:
        raise refusal
    return moving
