"""Every date and month field of every tool and prompt, at the calendar's ends and in between.

Each field found in the published input schemas (a string whose description names YYYY-MM,
nested ones too: `transactions[].date`) is called over real HTTP, through the SDK's client
with a read-write token and writes on, with 0001-01-01, 0001-01-02, 9999-12-30, 9999-12-31,
the first and last days of years in between, and yesterday, today and tomorrow (the server's
"today", `mcp_surface.plan_lookup.today`); a month field with the month of each (and the words).
Every answer is a result or a one-sentence refusal (never `Error executing tool`, never a
traceback), and nothing is written: no write request reaches the sandbox, no operation is
logged, and the shared plan is unchanged (`tests.helpers.shared_plans.read_only`).

The calls are listed per field below; a field the schemas publish and the list lacks fails
`test_every_date_field_is_listed`, so a new one is covered by adding a line here.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import anyio
import pytest
from asgiref.sync import sync_to_async
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult

from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.models import (
    Account,
    Category,
    Plan,
    ScheduledSubtransaction,
    ScheduledTransaction,
    Transaction,
)
from avenir_mcp.tokens.models import McpToken
from tests.helpers.mcp_http import mcp_over_http
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.sandbox_side import request_mark, writes_after
from tests.helpers.shared_plans import read_only

pytestmark = pytest.mark.anyio

CALL_SECONDS = 120


def dates_to_try(day: date) -> list[str]:
    """The calendar's ends, the first and last days of years in between, and around `day`."""
    years = (1970, day.year - 5, day.year, 2100)
    around = (day - timedelta(days=1), day, day + timedelta(days=1))
    edges = ["0001-01-01", "0001-01-02", "9999-12-30", "9999-12-31"]
    return [*edges, *(f"{y:04d}-{md}" for y in years for md in ("01-01", "12-31")), *map(str, around)]


def months_to_try(day: date) -> list[str]:
    """A month field's values: each date's month, the ends also as YYYY-MM-01, the words, a bad day."""
    months = dict.fromkeys(text[:7] for text in dates_to_try(day))
    return [*months, "0001-01-01", "9999-12-01", "current", "next", "9999-12-31"]


@dataclass(frozen=True)
class Ids:
    """The shared plan's ids the calls need besides the date, and the server's yesterday."""

    plan: str
    checking: str
    savings: str
    groceries: str
    dining: str
    yesterday: str
    scheduled: str  # a schedule that is not a split
    transaction: str  # a plain, unreconciled transaction on checking


# (tool, field path) → the arguments of a call with `value` in that field, the rest valid.
Call = Callable[[Ids, str], dict[str, Any]]
CALLS: dict[tuple[str, str], Call] = {
    ("list_scheduled_transactions", "since_date"): lambda ids, v: {"plan_id": ids.plan, "since_date": v},
    ("list_scheduled_transactions", "until_date"): lambda ids, v: {"plan_id": ids.plan, "until_date": v},
    ("find_transactions", "since_date"): lambda ids, v: {"plan_id": ids.plan, "since_date": v},
    ("find_transactions", "until_date"): lambda ids, v: {
        "plan_id": ids.plan,
        "since_date": ids.yesterday,
        "until_date": v,
    },
    ("get_category_balances", "month"): lambda ids, v: {"plan_id": ids.plan, "month": v},
    ("get_monthly_summary", "month"): lambda ids, v: {"plan_id": ids.plan, "month": v},
    ("get_budget_vs_actual", "month"): lambda ids, v: {"plan_id": ids.plan, "month": v},
    ("list_money_movements", "month"): lambda ids, v: {"plan_id": ids.plan, "month": v},
    ("get_underfunded_targets", "month"): lambda ids, v: {"plan_id": ids.plan, "month": v},
    ("forecast_balance", "until"): lambda ids, v: {"plan_id": ids.plan, "until": v},
    ("forecast_balance", "one_offs[].date"): lambda ids, v: {
        "plan_id": ids.plan,
        "one_offs": [{"date": v, "amount": "-100.00", "label": "car repair"}],
    },
    ("list_operations", "since_date"): lambda ids, v: {"plan_id": ids.plan, "since_date": v},
    ("set_category_budget", "month"): lambda ids, v: {
        "plan_id": ids.plan,
        "month": v,
        "category_id": ids.groceries,
        "amount": "1.00",
    },
    ("move_money", "month"): lambda ids, v: {
        "plan_id": ids.plan,
        "month": v,
        "from_category_id": ids.groceries,
        "to_category_id": ids.dining,
        "amount": "1.00",
    },
    ("set_category_target", "by_date"): lambda ids, v: {
        "plan_id": ids.plan,
        "category_id": ids.groceries,
        "amount": "500.00",
        "by_date": v,
    },
    ("create_transactions", "transactions[].date"): lambda ids, v: {
        "plan_id": ids.plan,
        "account_id": ids.checking,
        "transactions": [{"date": v, "amount": "-4.20", "payee_name": "Bakery"}],
    },
    ("transfer_money", "date"): lambda ids, v: {
        "plan_id": ids.plan,
        "from_account_id": ids.checking,
        "to_account_id": ids.savings,
        "amount": "1.00",
        "date": v,
    },
    ("create_scheduled_transaction", "date"): lambda ids, v: {
        "plan_id": ids.plan,
        "account_id": ids.checking,
        "date": v,
        "frequency": "monthly",
        "amount": "-4.20",
        "payee_name": "Bakery",
    },
    ("update_scheduled_transaction", "date"): lambda ids, v: {
        "plan_id": ids.plan,
        "scheduled_transaction_id": ids.scheduled,
        "date": v,
    },
    ("update_transactions", "updates[].date"): lambda ids, v: {
        "plan_id": ids.plan,
        "updates": [{"transaction_id": ids.transaction, "date": v}],
    },
}
# Fields whose range starts after today (a schedule's next date): their middle day is tomorrow.
FUTURE_ONLY = {("create_scheduled_transaction", "date"), ("update_scheduled_transaction", "date")}
# Both ends of a window at once: the window's own arithmetic at the calendar's ends.
WINDOWS = ("list_scheduled_transactions", "find_transactions")
PROMPT_MONTHS = {("monthly_review", "month")}


def is_date_field(schema: dict[str, Any]) -> bool:
    """A string field whose description names the YYYY-MM form: a date or a month."""
    options = [schema, *schema.get("anyOf", ())]
    return any(o.get("type") == "string" for o in options) and "YYYY-MM" in schema.get("description", "")


def date_fields(schema: dict[str, Any], root: dict[str, Any], path: str = "") -> Iterator[str]:
    """The paths of the date and month fields of a tool's input schema (`transactions[].date`)."""
    if "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    for option in schema.get("anyOf", ()):
        yield from date_fields(option, root, path)
    if schema.get("type") == "array":
        yield from date_fields(schema.get("items", {}), root, f"{path.rstrip('.')}[].")
    for name, field in schema.get("properties", {}).items():
        if is_date_field(field):
            yield f"{path}{name}"
        yield from date_fields(field, root, f"{path}{name}.")


@pytest.fixture(scope="module")
def plan(live_service) -> Iterator[Plan]:
    """The demo household, shared: nothing here may change it (checked at the end)."""
    with read_only(demo_plan_copy()) as shared:
        yield shared


@pytest.fixture(scope="module")
def ids(plan: Plan) -> Ids:
    checking, savings = (Account.objects.get(plan=plan, name=n) for n in ("Checking", "Savings"))
    groceries, dining = (Category.objects.get(plan=plan, name=n) for n in ("Groceries", "Dining Out"))
    yesterday = today() - timedelta(days=1)
    splits = ScheduledSubtransaction.objects.filter(plan=plan).values("scheduled_transaction_id")
    scheduled = ScheduledTransaction.objects.filter(plan=plan, deleted=False).exclude(pk__in=splits).first()
    assert scheduled is not None, "the demo plan has schedules"
    plain = Transaction.objects.filter(
        plan=plan, account=checking, deleted=False, cleared="uncleared", transfer_account=None
    ).exclude(category__role=Category.ROLE_SPLIT)
    transaction = plain.order_by("date", "id").first()
    assert transaction is not None
    return Ids(
        plan.id,
        checking.id,
        savings.id,
        groceries.id,
        dining.id,
        yesterday.isoformat(),
        scheduled.id,
        transaction.id,
    )


@pytest.fixture(scope="module")
def token(live_service) -> Iterator[str]:
    """A read-write token, with writes on: the write tools are listed and callable."""
    from django.conf import settings

    previous = settings.AVENIR_MCP_WRITE
    settings.AVENIR_MCP_WRITE = True
    _row, plaintext = McpToken.issue(f"date fields {uuid.uuid4().hex[:8]}", read_only=False)
    yield plaintext
    settings.AVENIR_MCP_WRITE = previous


def one_sentence(text: str, what: str) -> None:
    assert not text.startswith("Error executing tool"), f"internal error: {what}"
    assert "Traceback" not in text, f"{what}: {text!r}"
    assert "\n" not in text, f"{what}: {text!r}"
    assert text.endswith("."), f"{what}: not one sentence: {text!r}"


async def called(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    """The call's answer (`ok` or its refusal), checked to be a result or one sentence that wrote nothing."""
    mark, operations = await request_mark(), await Operation.objects.acount()
    result = await client.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult), f"{tool}({arguments}): {result!r}"
    assert await writes_after(mark) == [], f"{tool}({arguments}) wrote"
    assert await Operation.objects.acount() == operations, f"{tool}({arguments}) logged an operation"
    if not result.is_error:
        return "ok"
    (block,) = result.content
    one_sentence(block.text, f"{tool}({arguments})")
    return block.text


async def test_every_date_field_is_listed(live_service, token):
    with anyio.fail_after(CALL_SECONDS):
        async with mcp_over_http(live_service.url, token) as client:
            tools = (await client.list_tools()).tools
            prompts = (await client.list_prompts()).prompts

    published = {(t.name, path) for t in tools for path in date_fields(t.input_schema, t.input_schema)}
    published |= {(p.name, a.name) for p in prompts for a in p.arguments or () if "YYYY-MM" in a.description}
    assert published == set(CALLS) | PROMPT_MONTHS


@pytest.mark.matrix
@pytest.mark.parametrize("tool", sorted({tool for tool, _field in CALLS}))
async def test_each_date_gets_a_result_or_a_one_sentence_refusal_and_writes_nothing(
    live_service, token, ids, tool
):
    day = await sync_to_async(today)()
    fields = [(key, arguments) for key, arguments in CALLS.items() if key[0] == tool]
    answers: dict[tuple[str, str], str] = {}
    with anyio.fail_after(CALL_SECONDS):
        async with mcp_over_http(live_service.url, token) as client:
            for (_name, field), arguments in fields:
                values = dates_to_try(day) if field.endswith("date") else months_to_try(day)
                for value in values:
                    answers[field, value] = await called(client, tool, arguments(ids, value))
            if tool in WINDOWS:
                for value in dates_to_try(day):
                    both = {"plan_id": ids.plan, "since_date": value, "until_date": value}
                    answers["both", value] = await called(client, tool, both)

    # Every answer was read above as a result or one sentence; the day in the middle of every
    # range (today, tomorrow for FUTURE_ONLY, the current month) reaches a result, so the calls
    # get past the date checks.
    middle = {(field, _middle(key, day)) for key, _call in fields for field in [key[1]]}
    assert {key: answers[key] for key in middle} == dict.fromkeys(middle, "ok")


def _middle(key: tuple[str, str], day: date) -> str:
    if key in FUTURE_ONLY:
        return str(day + timedelta(days=1))
    return str(day) if key[1].endswith("date") else "current"


async def test_a_prompts_month_gets_its_text_or_a_one_sentence_refusal(live_service, token, ids):
    day = await sync_to_async(today)()
    refused: dict[str, MCPError | None] = {}
    with anyio.fail_after(CALL_SECONDS):
        async with mcp_over_http(live_service.url, token) as client:
            for value in months_to_try(day):
                refused[value] = await prompt_error(client, "monthly_review", ids.plan, value)

    for value, error in refused.items():
        if error is not None:
            assert error.code == INVALID_PARAMS, (value, error.message)
            one_sentence(error.message, f"monthly_review({value})")
    assert refused["current"] is None
    assert all(refused[edge] is not None for edge in ("0001-01", "0001-01-01", "9999-12", "9999-12-01"))


async def prompt_error(client: Client, prompt: str, plan_id: str, month: str) -> MCPError | None:
    """The error the prompt answers for `month` (its refusal), or None when it renders."""
    try:
        await client.get_prompt(prompt, {"plan_id": plan_id, "month": month})
    except MCPError as error:
        return error
    return None
