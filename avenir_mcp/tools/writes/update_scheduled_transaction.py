"""`update_scheduled_transaction`: change a schedule's date, frequency, amount, payee, category,
memo, account or flag, once the person agreed (docs/tools.md#update_scheduled_transaction), and its
undo (docs/undo.md#update_scheduled_transaction): the fields put back while each is still as left.

The checks and words are `tools.logic.schedule_writes`. One `PUT
/plans/{plan_id}/scheduled_transactions/{id}` with every field, the unchanged ones as read (YNAB
clears what a PUT leaves out). The subject is the schedule and its every field after (a change
made in YNAB meanwhile to any field makes it another change: the PUT would send it); the stored
subject drops the payee, memo and amount. The log keeps the schedule before and after and the
fields changed (the payee, memo and amount included: undo restores them, docs/tools.md's
privacy exception).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import AmountValue, amount_arg, date_arg, given_text, id_arg
from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, UndoRecord
from avenir_mcp.tools.logic.flags import NO_FLAG, Colour
from avenir_mcp.tools.logic.schedule_writes import (
    UPDATABLE,
    Schedule,
    body,
    changed_fields,
    changes_words,
    check_amount,
    check_frequency,
    check_schedule,
    check_schedule_date,
    counterpart,
    field_value,
    live_schedule,
    refuse_split,
    schedule_from_answer,
    schedule_label,
    schedule_of,
)
from avenir_mcp.tools.logic.schedules import FREQUENCIES
from avenir_mcp.tools.writes.create_scheduled_transaction import (
    FREQUENCY_DESCRIPTION,
    MEMO_LIMIT,
    PAYEE_LIMIT,
)
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check the schedule with list_scheduled_transactions before trying again."


class FieldChange(BaseModel):
    field: str = Field(description="The argument's name: date, frequency, amount, payee_name, category_id, …")
    from_: str = Field(alias="from", description="Its value before, as the preview shows it.")
    to: str = Field(description="Its value after.")

    model_config = ConfigDict(frozen=True, extra="forbid", serialize_by_alias=True)


class ScheduleUpdatedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    scheduled_transaction_id: str = Field(description="The schedule.")
    fields: list[FieldChange] = Field(description="Each field changed, in the arguments' order.")


class ScheduleUpdated(ScheduleUpdatedFields, WriteResult):
    pass


@dataclass(frozen=True)
class ScheduleEdit:
    """update_scheduled_transaction's arguments, checked: the schedule and each field given (memo
    "" removes it; flag `none` removes it)."""

    scheduled_transaction_id: str
    given: dict[str, Any]


class ScheduleUpdateSubject(Subject):
    """The schedule and its every field after; the log keeps it without payee, memo and amount."""

    scheduled_transaction_id: str
    after: Schedule

    def stored(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"after": {"payee_name", "memo", "amount"}})


class ScheduleUpdate(Record):
    """update_scheduled_transaction's undo data: the schedule before and after, and the fields changed."""

    scheduled_transaction_id: str
    before: Schedule
    after: Schedule
    fields: tuple[str, ...]


Edit = Change[ScheduleUpdateSubject, ScheduleUpdatedFields, ScheduleUpdate]


class UpdateScheduledTransaction(
    WriteTool[ScheduleEdit, ScheduleUpdateSubject, ScheduleUpdatedFields, ScheduleUpdate]
):
    """Changes one schedule's fields; undone while each is still as it left them."""

    name = "update_scheduled_transaction"
    result = ScheduleUpdated

    def build(
        self, snapshot: PlanSnapshot, arguments: ScheduleEdit
    ) -> Built[ScheduleUpdateSubject, ScheduleUpdatedFields, ScheduleUpdate]:
        scheduled = live_schedule(snapshot, arguments.scheduled_transaction_id)
        refuse_split(snapshot, scheduled)
        before = schedule_of(snapshot, scheduled)
        after = _edited(snapshot, before, arguments.given)
        fields = changed_fields(before, after)
        result = ScheduleUpdatedFields(
            scheduled_transaction_id=scheduled.id, fields=_field_changes(snapshot, fields, before, after)
        )
        if not fields:
            return Change.nothing(
                f"Nothing to change: the schedule {schedule_label(snapshot, before)} has those values.",
                result,
            )
        question = (
            f"Change the schedule {schedule_label(snapshot, before)}: "
            f"{changes_words(snapshot, fields, before, after)}?"
        )
        return Change(
            subject=ScheduleUpdateSubject(scheduled_transaction_id=scheduled.id, after=after),
            preview=Preview(question=question),
            fields=result,
            undo_data=ScheduleUpdate(
                scheduled_transaction_id=scheduled.id, before=before, after=after, fields=fields
            ),
            check=CHECK,
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, change: Edit
    ) -> Applied[ScheduleUpdatedFields]:
        logged = change.undo_data
        data = await client.put_scheduled_transaction(
            snapshot.plan_id, logged.scheduled_transaction_id, body(logged.after), check_hint=CHECK
        )
        after = schedule_from_answer(data["scheduled_transaction"])
        return Applied(
            undo_data=logged.model_copy(update={"after": after}),
            lead=f"Changed the schedule {schedule_label(snapshot, after)}.",
        )

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[Schedule]:
        logged = ScheduleUpdate.from_stored(op.undo_data)
        before, after = logged.before, logged.after
        question = (
            f"Undo: change the schedule {counterpart(snapshot, before)} back: "
            f"{changes_words(snapshot, logged.fields, after, before)}?"
        )
        scheduled = snapshot.scheduled_transactions.get(logged.scheduled_transaction_id)
        label = schedule_label(snapshot, after)
        if scheduled is None:
            conflict = Conflict(logged.scheduled_transaction_id, label, "it was deleted")
            return Reversal(question=question, conflicts=(conflict,))
        current = schedule_of(snapshot, scheduled)
        moved = changed_fields(after, current, logged.fields)
        if not moved:
            restored = current.model_copy(
                update={name: getattr(before, name) for name in _model_fields(logged.fields)}
            )
            return Reversal(question=question, restorable=(restored,))
        if not changed_fields(before, current, logged.fields):
            return Reversal(question=question, already_as_before=1)
        words = changes_words(snapshot, moved, after, current)
        return Reversal(
            question=question,
            conflicts=(Conflict(scheduled.id, label, f"it changed since the operation: {words}"),),
        )

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[Schedule]
    ) -> UndoRecord:
        (restored,) = reversal.restorable
        scheduled_id = ScheduleUpdate.from_stored(op.undo_data).scheduled_transaction_id
        await client.put_scheduled_transaction(
            snapshot.plan_id, scheduled_id, body(restored), check_hint=CHECK
        )
        return UndoRecord(restored=({"scheduled_transaction_id": scheduled_id},))


def _model_fields(fields: tuple[str, ...]) -> list[str]:
    """The `Schedule` fields an argument field stands for (the payee: its id, name and transfer)."""
    payee = ["payee_id", "payee_name", "transfer_account_id"]
    return [name for field in fields for name in (payee if field == "payee_name" else [field])]


def _edited(snapshot: PlanSnapshot, before: Schedule, given: dict[str, Any]) -> Schedule:
    """`before` with the given fields, checked against the plan as a new schedule would be."""
    update = dict(given)
    if "payee_name" in update:
        update |= {"payee_id": None, "transfer_account_id": None}
    if update.get("memo") == "":
        update["memo"] = None
    if update.get("flag") == NO_FLAG:
        update["flag"] = None
    after = before.model_copy(update=update)
    check_schedule_date(after.date, today())
    return check_schedule(snapshot, after)


def _field_changes(
    snapshot: PlanSnapshot, fields: tuple[str, ...], before: Schedule, after: Schedule
) -> list[FieldChange]:
    return [
        FieldChange.model_validate(
            {
                "field": field,
                "from": field_value(snapshot, before, field),
                "to": field_value(snapshot, after, field),
            }
        )
        for field in fields
    ]


@write_tool(
    UpdateScheduledTransaction(),
    title="Change a scheduled transaction",
    toolset="schedules",
    destructive=True,
    idempotent=True,
)
def update_scheduled_transaction(
    scheduled_transaction_id: Annotated[
        str, Field(description="The schedule (list_scheduled_transactions gives the ids).", max_length=100)
    ],
    date: Annotated[
        str | None,
        Field(description="Its next date, YYYY-MM-DD: after today, at most 5 years ahead.", max_length=40),
    ] = None,
    frequency: Annotated[
        str | None,
        Field(
            description=FREQUENCY_DESCRIPTION, max_length=40, json_schema_extra={"enum": [*FREQUENCIES, None]}
        ),
    ] = None,
    amount: Annotated[
        AmountValue | None,
        Field(description='Currency units as a decimal like "-1250.00" (money out negative, in positive).'),
    ] = None,
    payee_name: Annotated[
        str | None,
        Field(
            description="Another payee, 1-200 characters (YNAB finds it by name or creates it).",
            max_length=1000,
        ),
    ] = None,
    category_id: Annotated[
        str | None,
        Field(
            description="Another category (get_category_balances). None on a tracking account.",
            max_length=100,
        ),
    ] = None,
    memo: Annotated[
        str | None, Field(description='A memo, at most 500 characters; "" removes it.', max_length=2000)
    ] = None,
    account_id: Annotated[
        str | None, Field(description="Another account (list_accounts), open.", max_length=100)
    ] = None,
    flag: Annotated[
        Literal[Colour, "none"] | None, Field(description="A flag colour, or none to remove the flag.")
    ] = None,
) -> ScheduleEdit:
    """Change a scheduled transaction (a bill, pay, a planned transfer), once the person agreed.

    Give the schedule and at least one field: only those change; the others stay as YNAB has
    them. Split schedules cannot be changed through YNAB's API (the person can in YNAB). The
    person is asked to confirm (`Change the schedule Landlord; 1200.00 monthly from Checking:
    amount 1200.00 → 1250.00; next date 2026-10-01 → 2026-10-03?`) in their client, or you get
    a confirmation code to return only once they agreed. Values already as given change
    nothing (nothing_to_do). undo_operation with the operation id puts the fields back while
    each is still as this left it.
    """
    given: dict[str, Any] = {}
    if date is not None:
        given["date"] = check_schedule_date(date_arg(date, field="date"), today())
    if frequency is not None:
        given["frequency"] = check_frequency(frequency)
    if amount is not None:
        given["amount"] = check_amount(amount_arg(amount))
    if payee_name is not None:
        given["payee_name"] = given_text(payee_name, field="payee_name", max_length=PAYEE_LIMIT)
    if category_id is not None:
        given["category_id"] = id_arg(category_id, what="category")
    if memo is not None:
        given["memo"] = given_text(memo, field="memo", max_length=MEMO_LIMIT) if memo.strip() else ""
    if account_id is not None:
        given["account_id"] = id_arg(account_id, what="account")
    if flag is not None:
        given["flag"] = flag
    if not given:
        raise Refusal(f"Give at least one field to change: {', '.join(UPDATABLE)}.")
    return ScheduleEdit(
        scheduled_transaction_id=id_arg(scheduled_transaction_id, what="scheduled transaction"), given=given
    )
