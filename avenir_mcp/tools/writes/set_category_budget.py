"""`set_category_budget`: set what is assigned to a category in a month, once the person agreed
(docs/tools.md#set_category_budget), and its undo (docs/undo.md#set_category_budget): the amount
put back if it is still as the operation set it.

The checks and the words are `tools.logic.assigned`. One
`PATCH /plans/{plan_id}/months/{month}/categories/{category_id}` with `budgeted` (YNAB sets,
not adds). The log keeps the month and the category's assigned amount before and after
(`AssignedUndo`, the same shape as move_money's). The subject is that of
docs/confirmation.md#subjects-and-the-fingerprint: the amount assigned now is not part of it,
nor the available amount the preview shows before → after (with a note when the category is
left overspent, docs/confirmation.md#what-a-change-leaves-available).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import AmountValue, MonthArg, amount_arg, id_arg, month_arg
from avenir_mcp.mcp_surface.plan_lookup import require_month, today
from avenir_mcp.mcp_surface.presenting import money
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Subject
from avenir_mcp.oplog.undo import Reversal, UndoRecord
from avenir_mcp.tools.logic.assigned import AssignedWords, budget_setting
from avenir_mcp.tools.writes.assigned_pair import AssignedUndo, Step
from avenir_mcp.tools.writes.assigned_undo import budget_reversal, put_back
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.money import shown_amount
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check the category's assigned amount for that month with get_category_balances before trying again."


class BudgetSetFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    category_id: str = Field(description="The category.")
    category: str = Field(description="Its name (one line, at most 80 characters).")
    month: str = Field(description="The month, YYYY-MM-01.")
    from_amount: str = Field(description="What was assigned to it that month before, currency units.")
    to_amount: str = Field(description="What is assigned to it that month after, currency units.")


class BudgetSet(BudgetSetFields, WriteResult):
    pass


@dataclass(frozen=True)
class Budgeting:
    """set_category_budget's arguments, checked: the month, the category and the new amount."""

    month: date
    category_id: str
    amount: int


class BudgetSubject(Subject):
    """The category, the resolved month and the new assigned amount (milliunits): all stored."""

    category_id: str
    month: date
    amount: int


class SetCategoryBudget(WriteTool[Budgeting, BudgetSubject, BudgetSetFields, AssignedUndo]):
    """Sets one category's assigned amount; undone while it is still the amount set."""

    name = "set_category_budget"
    result = BudgetSet

    def build(
        self, snapshot: PlanSnapshot, arguments: Budgeting
    ) -> Built[BudgetSubject, BudgetSetFields, AssignedUndo]:
        month = require_month(snapshot, arguments.month)
        setting = budget_setting(snapshot, month, arguments.category_id, arguments.amount)
        words = AssignedWords.of(snapshot)
        name = words.name(setting.category)
        fields = BudgetSetFields(
            category_id=setting.category_id,
            category=name,
            month=month.isoformat(),
            from_amount=money(snapshot, setting.before),
            to_amount=money(snapshot, setting.after),
        )
        if setting.unchanged:
            amount = shown_amount(words.currency, arguments.amount)
            already = f"{name} already has {amount} assigned for {month.isoformat()}"
            return Change.nothing(f"Nothing to change: {already}.", fields)
        note = words.overspent_note(setting)
        return Change(
            subject=BudgetSubject(category_id=setting.category_id, month=month, amount=setting.after),
            preview=Preview(
                question=words.budget_question(name, month, setting.before, setting.after),
                lines=[words.line_of(setting)],
                notes=[note] if note else [],
            ),
            fields=fields,
            undo_data=AssignedUndo(month=month, categories=(setting.logged(),)),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[BudgetSubject, BudgetSetFields, AssignedUndo],
    ) -> Applied[BudgetSetFields]:
        logged = change.undo_data
        month, (item,) = logged.month, logged.categories
        await client.patch_month_category(
            snapshot.plan_id, month, item.category_id, item.after, check_hint=CHECK
        )
        shown = AssignedWords.of(snapshot).shift(item.before, item.after)
        return Applied(lead=f"Budgeted {change.fields.category} for {month.isoformat()}: {shown}.")

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[Step]:
        return budget_reversal(snapshot, AssignedUndo.from_stored(op.undo_data))

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[Step]
    ) -> UndoRecord:
        month = AssignedUndo.from_stored(op.undo_data).month
        return await put_back(client, snapshot, month, reversal, check_hint=CHECK)


CategoryIdArg = Annotated[
    str, Field(description="The category to budget: an id from get_category_balances.", max_length=100)
]


@write_tool(
    SetCategoryBudget(),
    title="Set a category's budget",
    toolset="categories",
    destructive=True,
    idempotent=True,
)
def set_category_budget(
    month: MonthArg,
    category_id: CategoryIdArg,
    amount: Annotated[
        AmountValue,
        Field(
            description='The new assigned amount for that month, in currency units (e.g. "150.00"): the '
            "total the category gets, not an amount to add. At most 3 decimals."
        ),
    ],
) -> Budgeting:
    """Set how much is assigned (budgeted) to one category in one month, after the person agreed.

    "My budget for X" is this assigned amount. The amount is the new total, not a change:
    to take money from one category and give it to another in one step, use move_money.
    Ready to Assign follows from what is assigned (get_monthly_summary shows it). The person
    is asked to confirm (`Budget Restaurants for 2026-09-01: 120.00 → 150.00?`, then the
    category's assigned and available amounts that month before → after, and a note naming it
    when it is left overspent) in their client, or you get a confirmation code to return only
    once they agreed. The same amount as now changes nothing (nothing_to_do). Refused: YNAB's
    internal categories (Ready to Assign, Uncategorized), months outside the plan.
    undo_operation with the operation id puts the amount back if it is still as set.
    """
    return Budgeting(
        month=month_arg(month, today()),
        category_id=id_arg(category_id, what="category"),
        amount=amount_arg(amount),
    )
