"""`move_money`: move an assigned amount from one category to another in a month, once the person
agreed (docs/tools.md#move_money), and its undo (docs/undo.md#move_money): both put back, or neither.

The checks and the words are `tools.logic.assigned`, the path (plan
read, question, log) `tools.writes.flow`. YNAB has no move request: it is two PATCHes of
month categories, source (− amount) then destination (+ amount), sent by
`tools.writes.assigned_pair.write_pair`, which puts the source back when the second fails or
is lost and not made (the branches are listed there). The log keeps the month and, source
first, each category's assigned amount before and after:
`{"month": "2026-09-01", "categories": [{"category_id", "before", "after"}, {...}]}`;
when the move did not complete, `outcome`, `landed` and `unsure` say what is in YNAB.

The subject is exactly that of docs/confirmation.md#subjects-and-the-fingerprint: both categories, resolved
month, amount moved in milliunits. The figures the preview shows (each category's assigned and available now)
are not part of it: the person agrees to moving that amount, so the same request with the same
arguments is accepted even if the categories' figures moved in YNAB meanwhile (the log and
undo keep the amounts each really went from and to).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import BaseModel, Field

from confirmations.preview import Preview
from mcp_surface.arguments import AmountValue, MonthArg, PlanIdArg, amount_arg, id_arg, month_arg
from mcp_surface.plan_lookup import require_month, today
from mcp_surface.presenting import money
from mcp_surface.registry import write_tool
from oplog.models import Operation
from oplog.settling.judge import PREFIX, Settlement, judged, settler
from oplog.undo import UndoPlan, UndoRecord, undo_handler
from tools.logic.assigned import (
    AssignedChange,
    AssignedNow,
    AssignedUndo,
    AssignedWords,
    MoneyMove,
    assignments_now,
    money_move,
    move_refusal,
)
from tools.writes.assigned_pair import Pair, Step, write_pair
from tools.writes.assigned_undo import move_undo_plan, put_back
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from values.refusal import Refusal
from ynab_client import PlanSnapshot, RequestKind, UnknownOutcome, YnabClient, YnabError, request_kind

TOOL = "move_money"
CHECK = (
    "Check both categories' assigned amounts for that month with get_category_balances before trying again."
)


class MovedCategory(BaseModel):
    category_id: str
    name: str = Field(description="The category's name (one line, at most 80 characters).")
    from_amount: str = Field(description="Assigned to it that month before, currency units.")
    to_amount: str = Field(description="Assigned to it that month after, currency units.")
    available_after: str = Field(description="Available that month after the move (negative: overspent).")


class MoneyMoved(WriteResult):
    month: str = Field(description="The month, YYYY-MM-01.")
    amount: str = Field(description="The amount moved, currency units (above zero).")
    from_category: MovedCategory = Field(description="The category the money leaves.")
    to_category: MovedCategory = Field(description="The category the money goes to.")


FromCategoryArg = Annotated[
    str, Field(description="The category the money leaves: an id from get_category_balances.", max_length=100)
]
ToCategoryArg = Annotated[
    str,
    Field(description="The category the money goes to: an id from get_category_balances.", max_length=100),
]


@write_tool(title="Move money between categories", toolset="categories", destructive=True, idempotent=False)
async def move_money(
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
    ctx: Context,
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, MoneyMoved] | InputRequiredResult:
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
    chosen = month_arg(month, today())
    source, destination = id_arg(from_category_id, what="category"), id_arg(to_category_id, what="category")
    milliunits = amount_arg(amount)
    refusal = move_refusal(source, destination, milliunits)
    if refusal is not None:
        raise Refusal(refusal)
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=MoneyMoved,
        build=lambda snapshot: build_change(snapshot, chosen, source, destination, milliunits),
        apply=_apply,
    )


def build_change(snapshot: PlanSnapshot, month: date, source: str, destination: str, amount: int) -> Change:
    """The change: subject, preview (question, both categories, an overspending note), fields, undo data."""
    move = money_move(snapshot, require_month(snapshot, month), source, destination, amount)
    words = AssignedWords.of(snapshot)
    note = words.overspent_note(move.source)
    return Change(
        subject=_subject(move),
        stored_subject=_subject(move),  # category amounts, no transaction data: nothing the log must not keep
        preview=Preview(
            question=words.move_question(
                amount, words.name(move.source.category), words.name(move.destination.category), month
            ),
            lines=[words.line_of(move.source), words.line_of(move.destination)],
            notes=[note] if note else [],
        ),
        fields=_fields(snapshot, move, words),
        undo_data=AssignedUndo(month, (move.source.logged(), move.destination.logged())),
        check=CHECK,
    )


def _subject(move: MoneyMove) -> dict[str, Any]:
    return {
        "month": move.month.isoformat(),
        "from_category_id": move.source.category_id,
        "to_category_id": move.destination.category_id,
        "amount": move.amount,
    }


def _fields(snapshot: PlanSnapshot, move: MoneyMove, words: AssignedWords) -> dict[str, Any]:
    return {
        "month": move.month.isoformat(),
        "amount": money(snapshot, move.amount),
        "from_category": _moved_category(snapshot, move.source, words),
        "to_category": _moved_category(snapshot, move.destination, words),
    }


def _moved_category(snapshot: PlanSnapshot, change: AssignedChange, words: AssignedWords) -> dict[str, str]:
    return {
        "category_id": change.category_id,
        "name": words.name(change.category),
        "from_amount": money(snapshot, change.before),
        "to_amount": money(snapshot, change.after),
        "available_after": money(snapshot, change.available_after),
    }


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change[AssignedUndo]) -> Applied:
    assert change.undo_data is not None  # build_change always sets it
    month, (source, destination) = change.undo_data.month, change.undo_data.categories
    names = change.fields["from_category"]["name"], change.fields["to_category"]["name"]
    pair = Pair(
        plan_id=snapshot.plan_id,
        month=month,
        first=Step(source.category_id, names[0], source.before, source.after),
        second=Step(destination.category_id, names[1], destination.before, destination.after),
        words=AssignedWords.of(snapshot),
        check_hint=CHECK,
        settled_later=True,
        logged=change.undo_data,
    )
    await write_pair(client, pair)
    amount = pair.words.amount(destination.after - destination.before)
    moved = f"Moved {amount} from {names[0]} to {names[1]} for {month.isoformat()}."
    return Applied(lead=moved)


@undo_handler(TOOL)
class MoveMoneyUndo:
    """Moves the money back when both categories are still as the move left them (or one is
    already back as before); when either changed since, both are left as they are."""

    def plan(self, snapshot: PlanSnapshot, op: Operation) -> UndoPlan:
        return move_undo_plan(snapshot, op)

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, plan: UndoPlan
    ) -> UndoRecord:
        return await put_back(client, snapshot, op, plan, check_hint=CHECK)


@settler(TOOL)
class MoveMoneySettler:
    """A move whose outcome is open (an answer lost, the process stopped between the two writes, or
    a set-back that could not be sent yet), judged on YNAB's state and finished when half landed:

    - both as the move left them → `applied`; both as before → `failed`, nothing moved;
    - the source lowered, the destination as before (half a move) → the source is set back (a
      rollback, as the move's own): answered → `failed`, nothing moved; otherwise the row stays
      pending and the next round tries again (waiting out YNAB's pause after a 429); the same
      for a destination write that landed late (after timing out) while the source is as before;
    - the source changed since while the destination is as before → left as it is: `failed` when
      the source's write is known to have landed, else `unknown`, naming the exact amount to set
      in YNAB to put the move back (what it holds now plus the amount moved);
    - anything else → the item-by-item rule (`oplog.settling.judge.judged`).
    """

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        logged = AssignedUndo.from_json(op.undo_data)
        month = logged.month
        source, destination = assignments_now(snapshot, month, logged.categories)
        words = AssignedWords.of(snapshot)
        states = (source.state, destination.state)
        if states == ("restore", "already_as_before"):
            return await _set_back(client, snapshot, logged, source, words)
        if states == ("already_as_before", "restore"):  # a lost destination write landed late
            return await _set_back(client, snapshot, logged, destination, words)
        source_changed = source.state == "conflict" and source.assigned is not None
        if source_changed and destination.state == "already_as_before":
            return _settle_changed_source(logged, source, words)
        return judged(move_undo_plan(snapshot, op))


async def _set_back(
    client: YnabClient, snapshot: PlanSnapshot, move: AssignedUndo, landed: AssignedNow, words: AssignedWords
) -> Settlement:
    """Half of the move is in YNAB (`landed`, the other as before): put it back, as a rollback."""
    logged, month = landed.logged, move.month.isoformat()
    name = words.name(landed.category, logged.category_id)
    half = (
        f"{PREFIX} half of the move is in YNAB: {name} is {words.amount(logged.after)} for {month}, the "
        "other category as before."
    )
    paused = client.sender.pacer.paused_until()
    if paused is not None:
        return Settlement(
            "pending",
            f"{half} YNAB asked to wait (429); {name} is set back to {words.amount(logged.before)} after "
            f"{paused:%H:%M} UTC.",
            "part",
            final=False,
        )
    try:
        with request_kind(RequestKind.ROLLBACK):  # never refused by the pacer
            await client.patch_month_category(
                snapshot.plan_id, month, logged.category_id, logged.before, check_hint=CHECK
            )
    except UnknownOutcome:
        said = f"{half} Setting {name} back got no answer; the next round reads it back."
        return Settlement("pending", said, "part", final=False)
    except YnabError as failed:
        said = f"{half} Setting {name} back failed ({failed.message}); it is tried again."
        return Settlement("pending", said, "part", final=False)
    record = replace(move, outcome="nothing_moved", landed=(), unsure=())
    said = (
        f"{PREFIX} nothing moved: half of the move had landed ({name} at {words.amount(logged.after)}), "
        f"and {name} was set back to {words.amount(logged.before)}; both categories are as before."
    )
    return Settlement("failed", said, "none", undo_data=record)


def _settle_changed_source(move: AssignedUndo, source: AssignedNow, words: AssignedWords) -> Settlement:
    logged, now, month = source.logged, source.assigned or 0, move.month.isoformat()
    name = words.name(source.category, logged.category_id)
    moved = logged.before - logged.after
    put_back = f"set {name} for {month} to {words.amount(now + moved)} in YNAB"
    known_half = logged.category_id in move.landed
    if known_half:
        said = (
            f"{PREFIX} half of the move was in YNAB, but {name} changed since (now {words.amount(now)}, not "
            f"{words.amount(logged.after)}), so it was left as it is. To put the move back, {put_back} (what "
            f"it holds now plus the {words.amount(moved)} the move took); the other category is as before."
        )
        return Settlement("failed", said, "part", undo_data=replace(move, outcome="half_done"))
    said = (
        f"{PREFIX} YNAB cannot tell whether the move's first change landed: {name} is now "
        f"{words.amount(now)} (neither {words.amount(logged.before)} nor {words.amount(logged.after)}) and "
        f"the other category is as before. If it had landed, {put_back} to put the move back."
    )
    return Settlement("unknown", said, "unsure")
