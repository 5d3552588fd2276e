"""`set_category_budget`: set what is assigned to a category in a month, once the person agreed
(docs/tools.md#set_category_budget), and its undo (docs/undo.md#set_category_budget): the amount put back if
it is still as the operation set it.

The checks and the words are `tools.logic.assigned`; the path
(plan read, question, log, request) is `tools.writes.flow`. One
`PATCH /plans/{plan_id}/months/{month}/categories/{category_id}` with `budgeted` (YNAB sets,
not adds). The log keeps the month and the category's assigned amount before and after:
`{"month": "2026-09-01", "categories": [{"category_id", "before", "after"}]}` (milliunits,
the same shape as move_money's).

The subject is exactly that of docs/confirmation.md#subjects-and-the-fingerprint: category, resolved month,
amount in milliunits. The amount assigned now, which the question shows, is not part of it: the person agrees
to the new total, so the same request with the same arguments is accepted even if the category's
figures moved in YNAB meanwhile (the log and undo keep the amount it really replaced).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import Field

from confirmations.preview import Preview
from mcp_surface.arguments import AmountValue, MonthArg, PlanIdArg, amount_arg, id_arg, month_arg
from mcp_surface.plan_lookup import require_month, today
from mcp_surface.presenting import money
from mcp_surface.registry import write_tool
from oplog.models import Operation
from oplog.undo import UndoPlan, UndoRecord, undo_handler
from tools.logic.assigned import AssignedChange, AssignedUndo, AssignedWords, budget_setting
from tools.writes.assigned_undo import budget_undo_plan, put_back
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from ynab_client import PlanSnapshot, YnabClient

TOOL = "set_category_budget"
CHECK = "Check the category's assigned amount for that month with get_category_balances before trying again."


class BudgetSet(WriteResult):
    category_id: str = Field(description="The category.")
    category: str = Field(description="Its name (one line, at most 80 characters).")
    month: str = Field(description="The month, YYYY-MM-01.")
    from_amount: str = Field(description="What was assigned to it that month before, currency units.")
    to_amount: str = Field(description="What is assigned to it that month after, currency units.")


CategoryIdArg = Annotated[
    str, Field(description="The category to budget: an id from get_category_balances.", max_length=100)
]


@write_tool(title="Set a category's budget", toolset="categories", destructive=True, idempotent=True)
async def set_category_budget(
    month: MonthArg,
    category_id: CategoryIdArg,
    amount: Annotated[
        AmountValue,
        Field(
            description='The new assigned amount for that month, in currency units (e.g. "150.00"): the '
            "total the category gets, not an amount to add. At most 3 decimals."
        ),
    ],
    ctx: Context,
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, BudgetSet] | InputRequiredResult:
    """Set how much is assigned (budgeted) to one category in one month, after the person agreed.

    "My budget for X" is this assigned amount. The amount is the new total, not a change:
    to take money from one category and give it to another in one step, use move_money.
    Ready to Assign follows from what is assigned (get_monthly_summary shows it). The person
    is asked to confirm (`Budget Restaurants for 2026-09-01: 120.00 → 150.00?`) in their
    client, or you get a confirmation code to return only once they agreed. The same amount
    as now changes nothing (nothing_to_do). Refused: YNAB's internal categories (Ready to
    Assign, Uncategorized), months outside the plan. undo_operation with the operation id
    puts the amount back if it is still as set.
    """
    chosen = month_arg(month, today())
    category = id_arg(category_id, what="category")
    milliunits = amount_arg(amount)
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=BudgetSet,
        build=lambda snapshot: build_change(snapshot, chosen, category, milliunits),
        apply=_apply,
    )


def build_change(snapshot: PlanSnapshot, month: date, category_id: str, amount: int) -> Change:
    """The change (subject, preview, result fields, undo data), or nothing to do."""
    setting = budget_setting(snapshot, require_month(snapshot, month), category_id, amount)
    words = AssignedWords.of(snapshot)
    name = words.name(setting.category)
    fields = _fields(snapshot, setting, name)
    if setting.unchanged:
        already = f"{name} already has {words.amount(amount)} assigned for {month.isoformat()}"
        return Change.nothing(f"Nothing to change: {already}.", fields)
    subject = {"category_id": setting.category_id, "month": month.isoformat(), "amount": setting.after}
    return Change(
        subject=subject,
        stored_subject=subject,  # category amounts, no transaction data: nothing the log must not keep
        preview=Preview(question=words.budget_question(name, month, setting.before, setting.after)),
        fields=fields,
        undo_data=AssignedUndo(month, (setting.logged(),)),
        check=CHECK,
    )


def _fields(snapshot: PlanSnapshot, setting: AssignedChange, name: str) -> dict[str, Any]:
    return {
        "category_id": setting.category_id,
        "category": name,
        "month": setting.month.isoformat(),
        "from_amount": money(snapshot, setting.before),
        "to_amount": money(snapshot, setting.after),
    }


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change[AssignedUndo]) -> Applied:
    assert change.undo_data is not None  # build_change always sets it
    month, (item,) = change.undo_data.month, change.undo_data.categories
    await client.patch_month_category(snapshot.plan_id, month, item.category_id, item.after, check_hint=CHECK)
    words = AssignedWords.of(snapshot)
    shown = f"{words.amount(item.before)} → {words.amount(item.after)}"
    return Applied(lead=f"Budgeted {change.fields['category']} for {month.isoformat()}: {shown}.")


@undo_handler(TOOL)
class SetCategoryBudgetUndo:
    """Puts the assigned amount back when it is still the one the operation set; else a conflict."""

    def plan(self, snapshot: PlanSnapshot, op: Operation) -> UndoPlan:
        return budget_undo_plan(snapshot, op)

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, plan: UndoPlan
    ) -> UndoRecord:
        return await put_back(client, snapshot, op, plan, check_hint=CHECK)
