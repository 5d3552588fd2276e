"""`delete_scheduled_transaction`: delete a schedule, once the person agreed
(docs/tools.md#delete_scheduled_transaction), and its undo (docs/undo.md#delete_scheduled_transaction):
the schedule created again (a new id) while its next date is still after today.

The checks and words are `tools.logic.schedule_writes`. One `DELETE
/plans/{plan_id}/scheduled_transactions/{id}`. The log keeps the schedule's fields (payee, memo
and amount included: undo enters them again, docs/tools.md's privacy exception) and the ids of
the schedules already like it, so the one an undo creates is told apart from them. A split
schedule cannot be created again through the API: its row is `undoable: false` and its preview
says so. The subject is the schedule as it is (a change made in YNAB meanwhile makes it another
change); the stored subject keeps its id only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from django.utils import timezone
from pydantic import Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import id_arg
from avenir_mcp.oplog.changes import Applied, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, UndoRecord
from avenir_mcp.tools.logic.schedule_writes import (
    Schedule,
    alike,
    body,
    is_split,
    live_schedule,
    schedule_label,
    schedule_of,
)
from avenir_mcp.tools.writes.create_scheduled_transaction import ScheduleFields, schedule_fields
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.text import listed
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check with list_scheduled_transactions whether the schedule is still there before trying again."
UNDO_NOTE = "Undo creates it again (a new id)."
SPLIT_NOTE = "Undo cannot create a split schedule again; only YNAB's app can."


class ScheduleDeleted(ScheduleFields, WriteResult):
    pass


@dataclass(frozen=True)
class Unscheduling:
    """delete_scheduled_transaction's argument, checked: the schedule."""

    scheduled_transaction_id: str


class ScheduleDeletionSubject(Subject):
    """The schedule as it is; the log keeps its id only."""

    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"schedule"})

    scheduled_transaction_id: str
    schedule: Schedule
    split: bool


class ScheduleDeletion(Record):
    """delete_scheduled_transaction's undo data: the schedule deleted (its fields), whether it was
    a split, and `alike`: the ids of the other schedules like it then."""

    scheduled_transaction_id: str
    schedule: Schedule
    split: bool = False
    alike: tuple[str, ...] = ()


Deletion = Change[ScheduleDeletionSubject, ScheduleFields, ScheduleDeletion]


class DeleteScheduledTransaction(
    WriteTool[Unscheduling, ScheduleDeletionSubject, ScheduleFields, ScheduleDeletion]
):
    """Deletes one schedule; undone (created again) while its next date is still after today."""

    name = "delete_scheduled_transaction"
    result = ScheduleDeleted

    def build(self, snapshot: PlanSnapshot, arguments: Unscheduling) -> Deletion:
        scheduled = live_schedule(snapshot, arguments.scheduled_transaction_id)
        schedule, split = schedule_of(snapshot, scheduled), is_split(snapshot, scheduled)
        label = listed([schedule_label(snapshot, schedule), f"next on {schedule.date.isoformat()}"])
        question = f"Delete the schedule {label}?"
        return Change(
            subject=ScheduleDeletionSubject(
                scheduled_transaction_id=scheduled.id, schedule=schedule, split=split
            ),
            preview=Preview(question=question, notes=[SPLIT_NOTE if split else UNDO_NOTE]),
            fields=schedule_fields(snapshot, schedule, scheduled.id),
            undo_data=ScheduleDeletion(
                scheduled_transaction_id=scheduled.id,
                schedule=schedule,
                split=split,
                alike=alike(snapshot, schedule, besides=scheduled.id),
            ),
            undoable=not split,
            check=CHECK,
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, change: Deletion
    ) -> Applied[ScheduleFields]:
        logged = change.undo_data
        await client.delete_scheduled_transaction(
            snapshot.plan_id, logged.scheduled_transaction_id, check_hint=CHECK
        )
        return Applied(lead=f"Deleted the schedule {schedule_label(snapshot, logged.schedule)}.")

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[Schedule]:
        """Still there, or created again since (a schedule like it that was not there): as before;
        gone with its next date after today (the snapshot's day): created again; else a conflict."""
        logged = ScheduleDeletion.from_stored(op.undo_data)
        schedule = logged.schedule
        label = schedule_label(snapshot, schedule)
        question = f"Undo: create the schedule {label} again?"
        if logged.scheduled_transaction_id in snapshot.scheduled_transactions:
            return Reversal(question=question, already_as_before=1)
        if set(alike(snapshot, schedule)) - set(logged.alike):
            return Reversal(question=question, already_as_before=1)
        day = timezone.localdate(snapshot.as_of)
        if schedule.date <= day:
            reason = f"its next date {schedule.date.isoformat()} is no longer after today"
            return Reversal(
                question=question, conflicts=(Conflict(logged.scheduled_transaction_id, label, reason),)
            )
        return Reversal(question=question, restorable=(schedule,))

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[Schedule]
    ) -> UndoRecord:
        (schedule,) = reversal.restorable
        data = await client.post_scheduled_transaction(snapshot.plan_id, body(schedule), check_hint=CHECK)
        return UndoRecord(restored=({"scheduled_transaction_id": data["scheduled_transaction"]["id"]},))


@write_tool(
    DeleteScheduledTransaction(),
    title="Delete a scheduled transaction",
    toolset="schedules",
    destructive=True,
    idempotent=False,
)
def delete_scheduled_transaction(
    scheduled_transaction_id: Annotated[
        str, Field(description="The schedule (list_scheduled_transactions gives the ids).", max_length=100)
    ],
) -> Unscheduling:
    """Delete a scheduled transaction (a bill that ended, a planned transfer no longer wanted),
    once the person agreed.

    Transactions it already entered stay. The person is asked to confirm (`Delete the schedule
    Landlord; 1200.00 monthly from Checking; next on 2026-10-01?`) in their client, or you get
    a confirmation code to return only once they agreed. undo_operation with the operation id
    creates it again (a new id) while its next date is still after today; a split schedule
    cannot be created again through YNAB's API (the preview says so).
    """
    return Unscheduling(
        scheduled_transaction_id=id_arg(scheduled_transaction_id, what="scheduled transaction")
    )
