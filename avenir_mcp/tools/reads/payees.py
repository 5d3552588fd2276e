"""`list_payees`: payees with how often and how recently they are used, searchable."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.arguments import CursorArg, LimitArg, PlanIdArg, given_text
from avenir_mcp.mcp_surface.plan_lookup import open_plan
from avenir_mcp.mcp_surface.presenting import PagedResult, day, plural, tool_result
from avenir_mcp.mcp_surface.registry import read_tool
from avenir_mcp.tools.logic.payee_stats import PayeeUsage, payee_usage
from avenir_mcp.values.paging import paginate
from avenir_mcp.values.text import shown_name

MAX_SEARCH = 200


class PayeeEntry(BaseModel):
    payee_id: str = Field(description="The payee's id.")
    name: str = Field(description="The payee's name as YNAB has it (bank data: one line, ≤ 80 characters).")
    merchant: str = Field(
        description="The name reduced to the merchant: upper-case, without card numbers, dates, "
        "references or payment words (CB, PRLV SEPA, VIR...). Payees with the same merchant are "
        "the same business written differently by the bank."
    )
    transactions: int = Field(description="How many transactions use it (split lines included).")
    last_date: str | None = Field(description="Date of its newest transaction (YYYY-MM-DD), null if unused.")


class PayeeListing(PagedResult):
    payees: list[PayeeEntry] = Field(description="Most used first, then by name.")
    total: int = Field(description="How many payees match, over all pages.")


@read_tool(title="List payees", toolset="payees")
async def list_payees(
    plan_id: PlanIdArg = None,
    search: Annotated[
        str | None,
        Field(
            description="Only payees whose name, or merchant form, contains this text "
            f"(case-insensitive, 1-{MAX_SEARCH} characters), e.g. netflix. Omitted: every payee.",
            max_length=MAX_SEARCH,
        ),
    ] = None,
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> Annotated[CallToolResult, PayeeListing]:
    """List the plan's payees, most used first, with how many transactions use each and when last.

    Use `search` to find a payee by part of its name; `merchant` shows the name without the
    bank's noise (card numbers, dates, payment words), so several payees with one merchant
    are the same business. Transfer payees (one per account) are left out. To see a payee's
    transactions, use find_transactions with `payee`.
    """
    wanted = given_text(search, field="search", max_length=MAX_SEARCH)
    snapshot = await open_plan(plan_id)
    query = {"tool": "list_payees", "plan": snapshot.plan_id, "search": wanted}
    page = paginate(payee_usage(snapshot, wanted), limit=limit, cursor=cursor, query=query)
    listing = PayeeListing(
        plan_id=snapshot.plan_id,
        as_of=snapshot.as_of,
        payees=[_entry(usage) for usage in page.items],
        total=page.total or 0,
        next_cursor=page.next_cursor,
    )
    return tool_result(listing, _summary(listing, search=wanted))


def _entry(usage: PayeeUsage) -> PayeeEntry:
    return PayeeEntry(
        payee_id=usage.payee.id,
        name=shown_name(usage.payee.name),
        merchant=shown_name(usage.merchant),
        transactions=usage.transactions,
        last_date=day(usage.last_date),
    )


def _summary(listing: PayeeListing, *, search: str | None) -> str:
    """One line, e.g. `3 payees matching the search; most used: NETFLIX.COM (6).`"""
    matched = plural(listing.total, "payee") + (" matching the search" if search is not None else "")
    if not listing.payees:
        return f"{matched}."
    top = listing.payees[0]
    more = "; more with next_cursor" if listing.next_cursor else ""
    return f"{matched}; most used: {top.name} ({top.transactions}){more}."
