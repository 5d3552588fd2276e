"""`create_scheduled_transaction`: schedule a bill, pay or a transfer, once the person agreed
(docs/tools.md#create_scheduled_transaction), and its undo (docs/undo.md#create_scheduled_transaction): the
schedule deleted while still exactly as created.

The checks and words are `tools.logic.schedule_writes`. One `POST
/plans/{plan_id}/scheduled_transactions` with every field. The log keeps the new id and the
schedule as YNAB created it; before sending, the schedule asked and the ids of the plan's
schedules already like it, so a lost answer is settled by finding the one that appeared
(`settle`). The stored subject drops the payee, memo and amount.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import AmountValue, amount_arg, date_arg, given_text, id_arg
from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.mcp_surface.presenting import account_name, category_name, memo, money
from avenir_mcp.oplog.changes import Applied, Change
from avenir_mcp.oplog.kinds import PREFIX, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, UndoRecord
from avenir_mcp.tools.logic.flags import Colour
from avenir_mcp.tools.logic.schedule_writes import (
    Schedule,
    ScheduleKept,
    alike_kept,
    body,
    check_amount,
    check_frequency,
    check_schedule,
    check_schedule_date,
    counterpart,
    creation_question,
    detail_lines,
    kept,
    kept_label,
    matches_kept,
    schedule_from_answer,
    schedule_label,
    schedule_of,
)
from avenir_mcp.tools.logic.schedules import FREQUENCIES
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check with list_scheduled_transactions whether the schedule is there before trying again."
PAYEE_LIMIT = 200
MEMO_LIMIT = 500
FREQUENCY_DESCRIPTION = (
    "YNAB's frequency: never (once), daily, weekly, everyOtherWeek, twiceAMonth, every4Weeks, monthly, "
    "everyOtherMonth, every3Months, every4Months, twiceAYear, yearly, everyOtherYear."
)
FrequencyArg = Annotated[
    str,
    Field(description=FREQUENCY_DESCRIPTION, max_length=40, json_schema_extra={"enum": list(FREQUENCIES)}),
]
FlagArg = Annotated[Colour | None, Field(description="A flag colour; null for none.")]


class ScheduleFields(BaseModel):
    """A schedule as a result shows it (create_scheduled_transaction's, delete_scheduled_transaction's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scheduled_transaction_id: str | None = Field(
        description="The schedule's id (list_scheduled_transactions); null until YNAB created it."
    )
    account: str = Field(description="The account's name.")
    date: str = Field(description="Its next date, YYYY-MM-DD.")
    frequency: str = Field(description=FREQUENCY_DESCRIPTION)
    amount: str = Field(description="Currency units; money out negative, money in positive.")
    payee: str = Field(
        description="The payee, or for a transfer the other account (one line, ≤ 80 characters)."
    )
    category: str | None = Field(description="The category's name; null for none.")
    memo: str | None = Field(description="The memo (one line, at most 80 characters); null for none.")


class ScheduleCreated(ScheduleFields, WriteResult):
    pass


def schedule_fields(snapshot: PlanSnapshot, schedule: Schedule, scheduled_id: str | None) -> ScheduleFields:
    return ScheduleFields(
        scheduled_transaction_id=scheduled_id,
        account=account_name(snapshot, schedule.account_id),
        date=schedule.date.isoformat(),
        frequency=schedule.frequency,
        amount=money(snapshot, schedule.amount),
        payee=counterpart(snapshot, schedule),
        category=category_name(snapshot, schedule.category_id),
        memo=memo(schedule.memo),
    )


@dataclass(frozen=True)
class Scheduling:
    """create_scheduled_transaction's arguments, checked (the plan not read yet)."""

    schedule: Schedule


class ScheduleCreationSubject(Subject):
    """The schedule asked; the log keeps it without its payee, memo and amount."""

    schedule: Schedule

    def stored(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"schedule": {"payee_name", "memo", "amount"}})


class ScheduleCreation(Record):
    """create_scheduled_transaction's undo data: the new schedule's id (None until YNAB's answer, or
    settling, names it) and the schedule as created (as asked, before the answer), its amount,
    payee and memo as a digest only; before sending also `alike`, the ids of the schedules
    already like it (the new one is another)."""

    scheduled_transaction_id: str | None = None
    schedule: ScheduleKept
    alike: tuple[str, ...] = ()


Creation = Change[ScheduleCreationSubject, ScheduleFields, ScheduleCreation]


class CreateScheduledTransaction(
    WriteTool[Scheduling, ScheduleCreationSubject, ScheduleFields, ScheduleCreation]
):
    """Schedules one transaction; undone while exactly as created; a lost answer settled by content."""

    name = "create_scheduled_transaction"
    result = ScheduleCreated
    no_id: ClassVar[str] = (
        "YNAB's answer was lost, so which schedule it created is not known (the operation's log says what "
        "settling found)"
    )

    def build(self, snapshot: PlanSnapshot, arguments: Scheduling) -> Creation:
        schedule = check_schedule(snapshot, arguments.schedule)
        return Change(
            subject=ScheduleCreationSubject(schedule=schedule),
            preview=Preview(question=creation_question(snapshot, schedule), lines=detail_lines(schedule)),
            fields=schedule_fields(snapshot, schedule, None),
            undo_data=ScheduleCreation(schedule=kept(schedule), alike=alike_kept(snapshot, kept(schedule))),
            check=CHECK,
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, change: Creation
    ) -> Applied[ScheduleFields]:
        data = await client.post_scheduled_transaction(
            snapshot.plan_id, body(change.subject.schedule), check_hint=CHECK
        )
        row = data["scheduled_transaction"]
        created = schedule_from_answer(row)
        return Applied(
            fields=change.fields.model_copy(update={"scheduled_transaction_id": row["id"]}),
            undo_data=ScheduleCreation(scheduled_transaction_id=row["id"], schedule=kept(created)),
            lead=f"Scheduled {schedule_label(snapshot, created)}.",
        )

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[str]:
        logged = ScheduleCreation.from_stored(op.undo_data)
        scheduled_id = logged.scheduled_transaction_id
        scheduled = snapshot.scheduled_transactions.get(scheduled_id or "")
        current = schedule_of(snapshot, scheduled) if scheduled is not None else None
        label = schedule_label(snapshot, current) if current else kept_label(snapshot, logged.schedule)
        question = f"Undo: delete the schedule {label}?"
        if scheduled_id is None:
            return Reversal(question=question, conflicts=(Conflict("", label, self.no_id),))
        if current is None:
            return Reversal(question=question, already_as_before=1)
        if not matches_kept(current, logged.schedule):
            reason = (
                "it changed since it was created (date, frequency, amount, payee, category, memo or flag)"
            )
            return Reversal(question=question, conflicts=(Conflict(scheduled_id, label, reason),))
        return Reversal(question=question, restorable=(scheduled_id,))

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[str]
    ) -> UndoRecord:
        (scheduled_id,) = reversal.restorable
        await client.delete_scheduled_transaction(snapshot.plan_id, scheduled_id, check_hint=CHECK)
        return UndoRecord(deleted_ids=(scheduled_id,))

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        """A lost answer: the schedule is found by its fields among those not there before (and
        not another operation's); none → not created; several → cannot tell which."""
        logged = ScheduleCreation.from_stored(op.undo_data)
        taken = await _taken_elsewhere(op)
        found = [i for i in alike_kept(snapshot, logged.schedule) if i not in logged.alike and i not in taken]
        label = kept_label(snapshot, logged.schedule)
        if not found:
            return Settlement("failed", f"{PREFIX} no schedule {label} appeared: it was not created.", "none")
        if len(found) > 1:
            said = (
                f"{PREFIX} {len(found)} schedules {label} appeared ({', '.join(found)}), so which one it "
                "created cannot be told; check them with list_scheduled_transactions."
            )
            return Settlement("unknown", said, "unsure")
        undo_data = ScheduleCreation(scheduled_transaction_id=found[0], schedule=logged.schedule)
        said = f"{PREFIX} the schedule {label} is in YNAB ({found[0]})."
        return Settlement("applied", said, "all", undo_data)


async def _taken_elsewhere(op: Operation) -> set[str]:
    """The schedule ids the plan's other create_scheduled_transaction rows hold as theirs."""
    others = Operation.objects.filter(plan_id=op.plan_id, tool=op.tool).exclude(pk=op.pk)
    stored = [data async for data in others.values_list("undo_data", flat=True) if data]
    return {i for i in (ScheduleCreation.from_stored(data).scheduled_transaction_id for data in stored) if i}


@write_tool(
    CreateScheduledTransaction(),
    title="Schedule a transaction",
    toolset="schedules",
    destructive=False,
    idempotent=False,
)
def create_scheduled_transaction(
    account_id: Annotated[str, Field(description="The account (list_accounts), open.", max_length=100)],
    date: Annotated[
        str,
        Field(description="Its first date, YYYY-MM-DD: after today, at most 5 years ahead.", max_length=40),
    ],
    frequency: FrequencyArg,
    amount: Annotated[
        AmountValue,
        Field(description='Currency units as a decimal like "-1200.00" (money out negative, in positive).'),
    ],
    payee_name: Annotated[
        str | None,
        Field(
            description="The payee, 1-200 characters (YNAB finds it by name or creates it); or null "
            "with transfer_account_id.",
            max_length=1000,
        ),
    ] = None,
    transfer_account_id: Annotated[
        str | None,
        Field(
            description="For a transfer: the other account (list_accounts); or null with payee_name.",
            max_length=100,
        ),
    ] = None,
    category_id: Annotated[
        str | None,
        Field(
            description="Its category (get_category_balances); null for none. None on a tracking account.",
            max_length=100,
        ),
    ] = None,
    memo: Annotated[str | None, Field(description="A memo, at most 500 characters.", max_length=2000)] = None,
    flag: FlagArg = None,
) -> Scheduling:
    """Schedule a transaction (a bill, pay, a planned transfer) in YNAB, once the person agreed.

    It falls first on `date` (after today, at most 5 years ahead), then repeats at `frequency`
    (never: once). Give exactly one of payee_name and transfer_account_id. Split schedules
    cannot be created through YNAB's API (the person can make them in YNAB). The person is
    asked to confirm (`Schedule 1200.00 to Landlord from Checking; monthly from 2026-10-01;
    as Rent?`) in their client, or you get a confirmation code to return only once they
    agreed. undo_operation with the operation id deletes the schedule while it is still
    exactly as created. See what is scheduled with list_scheduled_transactions.
    """
    if (payee_name is None) == (transfer_account_id is None):
        raise Refusal(
            "Give exactly one of payee_name (a payee) and transfer_account_id (a transfer to or from "
            "another account)."
        )
    schedule = Schedule(
        account_id=id_arg(account_id, what="account"),
        date=check_schedule_date(date_arg(date, field="date"), today()),
        frequency=check_frequency(frequency),
        amount=check_amount(amount_arg(amount)),
        payee_id=None,
        payee_name=given_text(payee_name, field="payee_name", max_length=PAYEE_LIMIT),
        transfer_account_id=id_arg(transfer_account_id, what="account") if transfer_account_id else None,
        category_id=id_arg(category_id, what="category") if category_id is not None else None,
        memo=given_text(memo, field="memo", max_length=MEMO_LIMIT),
        flag=flag,
    )
    return Scheduling(schedule=schedule)
