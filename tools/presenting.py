"""Turning a plan's data into result fields: amounts as decimal text, bank text made safe.

Amounts stay `int` milliunits through every computation and become text only here, with
the plan's decimal digits (`money(snapshot, -42500)` → `"-42.50"`); in sentences meant to be
read (one-line summaries, messages) amounts are `shown_money`, in the plan's own format like
the previews (`-42,50` in a plan with a decimal comma). Text from YNAB or
banks (payee, memo, account, category and group names) goes through `name` / `memo`:
one line, invisible characters removed, at most 80 characters. `tool_result` makes the
`CallToolResult` every read tool returns: one short line of text plus the structured content.
"""

from __future__ import annotations

from datetime import date

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from tools.logic.money import DEFAULT_DECIMAL_DIGITS, amount_text, format_amount
from tools.logic.text import safe_text
from tools.logic.transaction_lines import currency_format
from tools.ynab.snapshot import PlanSnapshot

TEXT_LIMIT = 80
SPLIT = "Split"
"""What a split transaction or schedule shows as its category (its lines have theirs)."""


class PlanResult(BaseModel):
    """Fields every plan read returns first."""

    plan_id: str = Field(description="The plan's real id (also when asked for last-used or the default).")


class PagedResult(PlanResult):
    """A plan read that comes in pages."""

    next_cursor: str | None = Field(
        description="Pass it as cursor, with the same other arguments, for the next page; null at the end."
    )


def decimal_digits(snapshot: PlanSnapshot) -> int:
    """The plan's decimal digits (0-3), 2 when YNAB gives no currency format."""
    currency = snapshot.settings.currency_format
    if currency is None or type(currency.decimal_digits) is not int:
        return DEFAULT_DECIMAL_DIGITS
    return min(max(currency.decimal_digits, 0), 3)


def money(snapshot: PlanSnapshot, milliunits: int) -> str:
    """Milliunits as a decimal string in currency units, with the plan's decimal digits:
    `-42500` → `"-42.50"`; never drops a milliunit (`1234` → `"1.234"`)."""
    return amount_text(milliunits, decimal_digits(snapshot))


def shown_money(snapshot: PlanSnapshot, milliunits: int) -> str:
    """Milliunits as the person reads them in this plan's previews and messages: its decimal
    digits and separator, no symbol, no grouping, `-` when negative (`-42,50`)."""
    return format_amount(milliunits, currency_format(snapshot))


def name(text: str | None) -> str:
    """A name from YNAB or a bank, safe to show: one line, ≤ 80 characters, "" when absent."""
    return safe_text(text, TEXT_LIMIT) or ""


def memo(text: str | None) -> str | None:
    """A memo safe to show, or None when there is none (or nothing visible in it)."""
    return safe_text(text, TEXT_LIMIT) or None


def day(value: date | None) -> str | None:
    """A date as `YYYY-MM-DD`, None stays None."""
    return value.isoformat() if value is not None else None


def account_name(snapshot: PlanSnapshot, account_id: str | None) -> str:
    account = snapshot.accounts.get(account_id) if account_id else None
    return name(account.name) if account is not None else ""


def category_name(snapshot: PlanSnapshot, category_id: str | None) -> str | None:
    """The category's name, None when there is none (or it was deleted)."""
    category = snapshot.categories.get(category_id) if category_id else None
    return name(category.name) if category is not None else None


def group_name(snapshot: PlanSnapshot, group_id: str | None) -> str:
    group = snapshot.category_groups.get(group_id) if group_id else None
    return name(group.name) if group is not None else ""


def payee_name(snapshot: PlanSnapshot, payee_id: str | None) -> str:
    """The payee's name, "" when there is none."""
    payee = snapshot.payees.get(payee_id) if payee_id else None
    return name(payee.name) if payee is not None else ""


def tool_result(result: BaseModel, text: str) -> CallToolResult:
    """What a read tool returns: `text` (one line) and `result` as structured content."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=result.model_dump(mode="json"),
    )


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """`1 account`, `3 accounts`; `plural_noun` when adding `s` is wrong."""
    return f"{count} {noun if count == 1 else plural_noun or noun + 's'}"
