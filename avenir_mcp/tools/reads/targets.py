"""`get_underfunded_targets`: the targets that still need money this month, in funding order."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import CursorArg, LimitArg, MonthArg, PlanIdArg
from avenir_mcp.mcp_surface.presenting import PagedResult, money, plural, shown_money, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.targets import Underfunded, underfunded_targets
from avenir_mcp.tools.reads.month_figures import open_plan_at
from avenir_mcp.values.paging import paginate
from avenir_mcp.values.text import shown_name
from avenir_mcp.ynab_client.snapshot import Category, PlanSnapshot

CADENCE_WORDS = {1: "each month", 2: "each week", 13: "each year", 14: "every 2 years"}


class TargetEntry(BaseModel):
    category_id: str = Field(description="The category's id (as get_category_balances gives it).")
    name: str = Field(description="The category's name.")
    group: str = Field(description="Its group's name.")
    target: str = Field(description="The target in words, e.g. 'Need 950.00 each month'.")
    due: str | None = Field(description="The target's date, YYYY-MM-DD; null when it has none.")
    needed: str = Field(
        description="YNAB's underfunded amount: still to assign this month (≥ 0, a magnitude)."
    )
    left: str | None = Field(
        description="YNAB's amount left to reach the whole target; null when YNAB has none."
    )
    percent_complete: int | None = Field(description="YNAB's percentage complete, 0-100.")
    months_left: int | None = Field(description="YNAB's months left to fund it, this one included.")
    urgency: str = Field(
        description="due_date (has a date), repeating (every month or week, debt), or other."
    )


class UnderfundedTargets(PagedResult):
    message: str = Field(description="The answer in one sentence.")
    month: str = Field(description="The month, YYYY-MM-01.")
    targets: list[TargetEntry] = Field(
        description="Underfunded targets: due_date first (soonest), then repeating, then other; the "
        "biggest need first within each."
    )
    needed: str = Field(description="What all of them still need this month, every page (≥ 0).")
    ready_to_assign: str = Field(description="The month's Ready to Assign, currency units.")
    enough: bool = Field(description="Whether Ready to Assign covers what is needed.")
    short_by: str = Field(description="needed - Ready to Assign when that is more than 0, else 0 (≥ 0).")
    notes: list[str] = Field(description="Assumptions made and data missing, one sentence each.")


@read_tool(title="Get underfunded targets", toolset="insights")
async def get_underfunded_targets(
    plan_id: PlanIdArg = None,
    month: MonthArg = "current",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> Annotated[CallToolResult, UnderfundedTargets]:
    """Which targets still need money this month, how much (YNAB's own underfunded amounts),
    and whether Ready to Assign covers them.

    Ordered to fund: targets with a due date first (soonest), then repeating ones (monthly,
    weekly, debt payments), then the others, biggest need first within each. Snoozed
    targets are left out. Use it when the person asks what to fund next or how to spend
    Ready to Assign; get_category_balances shows every category's figures.
    """
    snapshot, chosen = await open_plan_at(plan_id, month)
    found = underfunded_targets(snapshot, chosen)
    query = {"tool": "get_underfunded_targets", "plan": snapshot.plan_id, "month": chosen.isoformat()}
    page = paginate(list(found.underfunded), limit=limit, cursor=cursor, query=query)
    ready = snapshot.months[chosen].to_be_budgeted if chosen in snapshot.months else 0
    needed = found.needed
    short = max(0, needed - ready)
    count = len(found.underfunded)
    if count == 0:
        message = f"No target needs more money in {chosen.isoformat()}."
    else:
        covered = (
            f"Ready to Assign ({shown_money(snapshot, ready)}) covers them"
            if short == 0
            else (
                f"Ready to Assign ({shown_money(snapshot, ready)}) is short by {shown_money(snapshot, short)}"
            )
        )
        message = (
            f"{plural(count, 'target')} {'needs' if count == 1 else 'need'} {shown_money(snapshot, needed)} "
            "more in "
            f"{chosen.isoformat()}; {covered}."
        )
    notes = ["Needed, left and percent complete are YNAB's own figures for the month."]
    if found.with_target == 0:
        notes.append("No category has a target.")
    if found.snoozed:
        notes.append(f"{plural(found.snoozed, 'snoozed target')} left out.")
    result = UnderfundedTargets(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        message=message,
        month=chosen.isoformat(),
        targets=[_entry(snapshot, item) for item in page.items],
        needed=money(snapshot, needed),
        ready_to_assign=money(snapshot, ready),
        enough=short == 0,
        short_by=money(snapshot, short),
        notes=notes,
        next_cursor=page.next_cursor,
    )
    return tool_result(result, message)


def _entry(snapshot: PlanSnapshot, item: Underfunded) -> TargetEntry:
    figures = item.category
    return TargetEntry(
        category_id=figures.id,
        name=shown_name(figures.name),
        group=shown_name(item.group),
        target=target_text(snapshot, figures),
        due=figures.goal_target_date.isoformat() if figures.goal_target_date else None,
        needed=money(snapshot, item.needed),
        left=money(snapshot, figures.goal_overall_left) if figures.goal_overall_left is not None else None,
        percent_complete=figures.goal_percentage_complete,
        months_left=figures.goal_months_to_budget,
        urgency=item.urgency,
    )


def target_text(snapshot: PlanSnapshot, figures: Category) -> str:
    """The target in words: `Need 950.00 each month`, `Need 1200.00 by 2027-02-28`,
    `Have a balance of 500.00`, `Need 480.00 each year, next due 2027-03-15`."""
    amount = money(snapshot, figures.goal_target or 0)
    by = f" by {figures.goal_target_date.isoformat()}" if figures.goal_target_date else ""
    if figures.goal_type == "MF":
        return f"Assign {amount} each month"
    if figures.goal_type == "DEBT":
        return f"Pay {amount} each month toward the debt"
    if figures.goal_type in ("TB", "TBD"):
        return f"Have a balance of {amount}{by}"
    cadence = figures.goal_cadence
    if not cadence:  # a need by a date, or once
        return f"Need {amount}{by}"
    every = figures.goal_cadence_frequency or 1
    if cadence == 1 and every > 1:
        words = f"every {every} months"
    elif 3 <= cadence <= 12:
        words = f"every {cadence - 1} months"
    else:
        words = CADENCE_WORDS.get(cadence, "each month")
    due = f", next due {figures.goal_target_date.isoformat()}" if figures.goal_target_date else ""
    return f"Need {amount} {words}{due}"
