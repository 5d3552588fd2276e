"""Turning a plan's data into result fields: amounts as decimal text, bank text made safe.

Amounts stay `int` milliunits through every computation and become text only here, with
the plan's decimal digits (`money(snapshot, -42500)` → `"-42.50"`); in sentences meant to be
read (one-line summaries, messages) amounts are `shown_money` (`values.money.shown_amount`), in
the plan's own format like the previews (`-42,50` in a plan with a decimal comma), and a
list whose items carry amounts is joined by `values.text.listed` (`; `). Text from YNAB or
banks goes through `values.text.shown_name` (payee, account, category and group names;
`account_name`, `category_name`, `payee_name` look one up), `memo` or `note`: one line, invisible
characters removed, at most 80 characters. `tool_result` makes the
`CallToolResult` every tool returns: one short line of text plus the structured content.

What reaches the client is decided once, for every tool, by `readable` and `refusal_result`
(applied by `mcp_surface.answers` to every `tools/call`): the text content is the summary
line followed by the structured content as compact JSON, because some clients pass only the
text to the model and others only the structured content (docs/conventions.md#results); a refusal is its
sentence alone, and arguments that break the input schema become one such sentence
(`argument_sentence`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field, ValidationError, field_validator

from avenir_mcp.values.money import amount_text, shown_amount
from avenir_mcp.values.text import safe_text, shown_name
from avenir_mcp.ynab_client.snapshot import PlanSnapshot

TEXT_LIMIT = 80


AS_OF_DESCRIPTION = (
    "When this plan's data was last synced with YNAB (UTC); a change made in YNAB since may not show yet."
)


class PlanResult(BaseModel):
    """Fields every plan read returns first: the plan's real id, then `as_of`, the age of its
    data: the snapshot's `as_of` (`ynab_client.cache`: when the request that synced it was sent),
    given as `as_of=snapshot.as_of` and shown in UTC, cut to the second (never later than the
    sync), e.g. `2026-12-03T14:26:05Z` (docs/conventions.md#results)."""

    plan_id: str = Field(description="The plan's real id (also when asked for last-used or the default).")
    as_of: datetime = Field(description=AS_OF_DESCRIPTION)

    @field_validator("as_of")
    @classmethod
    def _to_the_second(cls, value: datetime) -> datetime:
        """UTC, without the fraction of a second: `2026-12-03T14:26:05Z` once serialised."""
        return value.astimezone(UTC).replace(microsecond=0)


class PagedResult(PlanResult):
    """A plan read that comes in pages."""

    next_cursor: str | None = Field(
        description="Pass it as cursor, with the same other arguments, for the next page; null at the end."
    )


def money(snapshot: PlanSnapshot, milliunits: int) -> str:
    """A result field's amount: `values.money.amount_text` in this plan's currency format
    (`-42500` → `"-42.50"`; never drops a milliunit: `1234` → `"1.234"`)."""
    return amount_text(snapshot.settings.currency_format, milliunits)


def shown_money(snapshot: PlanSnapshot, milliunits: int, *, statement: bool = False) -> str:
    """An amount in a sentence (a summary line, a `message`, a note): `values.money.shown_amount`
    in this plan's currency format (`-42500` → `-42,50` in a plan with a decimal comma); items
    of a list that carry amounts are joined by `values.text.listed` (docs/conventions.md#money-in-text)."""
    return shown_amount(snapshot.settings.currency_format, milliunits, statement=statement)


def memo(text: str | None) -> str | None:
    """A memo safe to show, or None when there is none (or nothing visible in it)."""
    return safe_text(text, TEXT_LIMIT) or None


def note(text: str | None) -> str | None:
    """A note the person keeps in YNAB (on an account, a category, a month), safe to show like a
    memo, or None: data to show, never an instruction (docs/conventions.md#results)."""
    return memo(text)


def day(value: date | None) -> str | None:
    """A date as `YYYY-MM-DD`, None stays None."""
    return value.isoformat() if value is not None else None


def account_name(snapshot: PlanSnapshot, account_id: str | None) -> str:
    """The account's name, "" when there is none."""
    account = snapshot.accounts.get(account_id) if account_id else None
    return shown_name(account.name) if account is not None else ""


def category_name(snapshot: PlanSnapshot, category_id: str | None) -> str | None:
    """The category's name, None when there is none (or it was deleted)."""
    category = snapshot.categories.get(category_id) if category_id else None
    return shown_name(category.name) if category is not None else None


def payee_name(snapshot: PlanSnapshot, payee_id: str | None) -> str:
    """The payee's name, "" when there is none."""
    payee = snapshot.payees.get(payee_id) if payee_id else None
    return shown_name(payee.name) if payee is not None else ""


def tool_result(result: BaseModel, text: str) -> CallToolResult:
    """What a tool returns: `text` (its one-line summary) and `result` as structured content.

    The client gets the summary followed by the structured content as JSON (`readable`).
    """
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=result.model_dump(mode="json"),
    )


def readable(result: CallToolResult) -> CallToolResult:
    """`result` with everything in its text too: the summary line, then the structured content
    as compact JSON (no indentation). Every tool answers through `tool_result`, which sets both."""
    summary = " ".join(block.text for block in result.content if isinstance(block, TextContent))
    text = (
        f"{summary}\n{compact_json(result.structured_content)}"
        if summary
        else compact_json(result.structured_content)
    )
    return result.model_copy(update={"content": [TextContent(type="text", text=text)]})


def compact_json(value: Mapping[str, Any]) -> str:
    """JSON with no indentation or spaces after separators, non-ASCII kept as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def refusal_result(sentence: str) -> CallToolResult:
    """A tool error whose text is exactly `sentence` (no prefix, nothing else)."""
    return CallToolResult(content=[TextContent(type="text", text=sentence)], is_error=True)


def argument_sentence(error: ValidationError, input_schema: Mapping[str, Any]) -> str:
    """Arguments that break a tool's input schema, as one line naming the argument and what to give.

    `Argument 'since_date' is missing. since_date: First day, YYYY-MM-DD (required).` The
    second sentence is the argument's own description from the input schema. Further
    arguments in error are named at the end (`Also check: limit.`).
    """
    problems = error.errors(include_url=False, include_input=False, include_context=False)
    first = problems[0]
    location = first["loc"]
    argument = str(location[0]) if location else ""
    shown = _argument_path(location)
    if first["type"] == "missing":
        sentence = f"Argument '{shown}' is missing."
    elif sum(1 for problem in problems if _argument_path(problem["loc"]) == shown) > 1:
        sentence = f"Argument '{shown}' has the wrong type."  # each type it may have refused it
    else:
        sentence = f"Argument '{shown}': {_lower_first(first['msg'])}."
    # every argument has a description: `mcp_surface.registry` refuses a tool with one that has none
    described = (input_schema.get("properties") or {}).get(argument, {}).get("description", "")
    sentence += f" {argument}: {safe_text(described, 300)}"
    others = sorted({str(problem["loc"][0]) for problem in problems if problem["loc"]} - {argument})
    if others:
        sentence += f" Also check: {', '.join(others)}."
    return safe_text(sentence, 600) or "The arguments do not match the tool's input schema."


def _argument_path(location: tuple[Any, ...]) -> str:
    """`assignments[0].category_id`; the names pydantic gives the union member it tried
    (`str`, `list[str]`, `function-after[...]`, a model's class name) are left out: the agent
    never wrote them."""
    path = ""
    for index, part in enumerate(location):
        if isinstance(part, int):
            path += f"[{part}]"
        elif index == 0:
            path = str(part)
        elif part.isidentifier() and part.islower() and part not in _TYPE_TAGS:
            path += f".{part}"
    return path


_TYPE_TAGS = frozenset({"str", "int", "float", "bool", "list", "dict", "none", "date", "decimal"})


def _lower_first(message: str) -> str:
    return message[:1].lower() + message[1:] if message else message


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """`1 account`, `3 accounts`; `plural_noun` when adding `s` is wrong."""
    return f"{count} {noun if count == 1 else plural_noun or noun + 's'}"
