"""Benchmark of each confirmed write's first call (its preview) over /mcp on a heavy plan.

    .venv/bin/python bench/writes.py [--transactions 50000] [--seed 0] [--calls 30]

Runs against a throwaway SQLite database (never the project's): seeds the heavy plan, creates
a read-write MCP token, serves the real ASGI application with writes on (`AVENIR_MCP_WRITE=1`)
in a child process (`bench/harness.py`; its sandbox is the "YNAB"), connects the MCP SDK's
client over streamable HTTP at protocol 2026-07-28 without elicitation, and calls each write
of `CASES`. Such a first call reads the plan (one delta request on a warm cache), checks the
arguments against it, builds the subject and preview, and answers `confirmation_required`
with a code: nothing is written, so the same call can be timed again and again.

Prints one figure a line as `name: value unit`: seed_time (s), first_call_time (s: the cold
load, one full export), then per write `<tool>_preview_median` and `<tool>_preview_p95` (ms:
`--calls` calls on a warm cache, one untimed first).

Target (issues 11 and 12): every write's preview median < 50 ms with a warm cache.

`CASES` is the table of writes: (tool name, argument builder). A builder takes the `Heavy`
plan (ids picked once from the seeded data) and returns the tool's arguments; adding a write
to the benchmark is one row.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from functools import partial
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    Service,
    arguments,
    figure,
    nearest_rank,
    seed_heavy,
    served,
    throwaway_database,
    timed_async,
)

CALL_TIMEOUT = 120.0
ITEMS = 20  # transactions per list write: a full preview page


@dataclass(frozen=True)
class Heavy:
    """Ids of the heavy plan the writes are built on, picked once from the sandbox's rows."""

    plan_id: str
    today: date
    account_id: str  # an open on-budget account
    second_account_id: str  # another open on-budget account (a transfer's destination)
    cleared_balance: int  # its cleared balance, milliunits
    categories: tuple[str, ...]  # ordinary categories, in a stable order
    transactions: tuple[str, ...]  # plain transactions of that account: not split, not transfers
    amounts: dict[str, int]
    group_id: str  # a group a category can be created in or moved to (not categories[0]'s own)
    payee_id: str  # a payee that is not a transfer payee
    scheduled_id: str  # a schedule of that account, not split nor a transfer, next due after today


def _units(milliunits: int) -> str:
    return str(Decimal(milliunits) / 1000)


def _apply_categories(plan: Heavy) -> dict:
    pairs = zip(plan.transactions[:ITEMS], plan.categories * ITEMS, strict=False)
    return {
        "plan_id": plan.plan_id,
        "assignments": [{"transaction_id": t, "category_id": c} for t, c in pairs],
    }


def _set_category_budget(plan: Heavy) -> dict:
    return {
        "plan_id": plan.plan_id,
        "month": "current",
        "category_id": plan.categories[0],
        "amount": "123.45",
    }


def _move_money(plan: Heavy) -> dict:
    return {
        "plan_id": plan.plan_id,
        "month": "current",
        "from_category_id": plan.categories[0],
        "to_category_id": plan.categories[1],
        "amount": "10.00",
    }


def _flag_transactions(plan: Heavy) -> dict:
    # Two colours in turn, so whatever flag a transaction has, most of them change.
    colours = ["purple", "orange"]
    flags = [{"transaction_id": t, "color": colours[i % 2]} for i, t in enumerate(plan.transactions[:ITEMS])]
    return {"plan_id": plan.plan_id, "flags": flags}


def _create_transactions(plan: Heavy) -> dict:
    day = (plan.today - timedelta(days=1)).isoformat()
    lines = [
        {
            "date": day,
            "amount": f"-{n + 1}.25",
            "payee_name": f"Bench shop {n}",
            "category_id": plan.categories[0],
        }
        for n in range(ITEMS)
    ]
    return {"plan_id": plan.plan_id, "account_id": plan.account_id, "transactions": lines}


def _update_transactions(plan: Heavy) -> dict:
    # A memo and a payee each (its name looked up among the plan's payees), and a cleared status:
    # fields every transaction takes, reconciled ones included.
    updates = [
        {"transaction_id": t, "memo": f"bench {n}", "payee_name": f"Bench payee {n}", "cleared": "uncleared"}
        for n, t in enumerate(plan.transactions[:ITEMS])
    ]
    return {"plan_id": plan.plan_id, "updates": updates}


def _delete_transactions(plan: Heavy) -> dict:
    return {"plan_id": plan.plan_id, "transaction_ids": list(plan.transactions[:ITEMS])}


def _split_transaction(plan: Heavy) -> dict:
    transaction = plan.transactions[0]
    amount = plan.amounts[transaction]
    first = amount // 2
    lines = [
        {"amount": _units(first), "category_id": plan.categories[0]},
        {"amount": _units(amount - first), "category_id": plan.categories[1]},
    ]
    return {"plan_id": plan.plan_id, "transaction_id": transaction, "lines": lines}


def _reconcile_account(plan: Heavy) -> dict:
    bank = _units(plan.cleared_balance + 1_000)  # a difference of 1.00, adjusted: the full preview
    return {"plan_id": plan.plan_id, "account_id": plan.account_id, "bank_balance": bank, "adjust": True}


def _set_category_target(plan: Heavy) -> dict:
    return {"plan_id": plan.plan_id, "category_id": plan.categories[0], "amount": "123.45"}


def _update_category(plan: Heavy) -> dict:
    return {
        "plan_id": plan.plan_id,
        "category_id": plan.categories[0],
        "name": "Bench renamed",
        "category_group_id": plan.group_id,
    }


def _create_category(plan: Heavy) -> dict:
    return {"plan_id": plan.plan_id, "category_group_id": plan.group_id, "name": "Bench new"}


def _create_account(plan: Heavy) -> dict:
    return {"plan_id": plan.plan_id, "name": "Bench account", "type": "savings", "balance": "2500.00"}


def _create_category_group(plan: Heavy) -> dict:
    return {"plan_id": plan.plan_id, "name": "Bench group"}


def _update_category_group(plan: Heavy) -> dict:
    return {"plan_id": plan.plan_id, "category_group_id": plan.group_id, "name": "Bench renamed group"}


def _transfer_money(plan: Heavy) -> dict:
    return {
        "plan_id": plan.plan_id,
        "from_account_id": plan.account_id,
        "to_account_id": plan.second_account_id,
        "amount": "250.00",
        "memo": "Bench transfer",
    }


def _rename_payee(plan: Heavy) -> dict:
    return {"plan_id": plan.plan_id, "payee_id": plan.payee_id, "name": "Bench payee"}


def _create_scheduled_transaction(plan: Heavy) -> dict:
    return {
        "plan_id": plan.plan_id,
        "account_id": plan.account_id,
        "date": (plan.today + timedelta(days=10)).isoformat(),
        "frequency": "monthly",
        "amount": "-1200.00",
        "payee_name": "Bench landlord",
        "category_id": plan.categories[0],
        "memo": "bench",
    }


def _update_scheduled_transaction(plan: Heavy) -> dict:
    day = (plan.today + timedelta(days=400)).isoformat()
    return {
        "plan_id": plan.plan_id,
        "scheduled_transaction_id": plan.scheduled_id,
        "date": day,
        "amount": "-7.25",
    }


def _delete_scheduled_transaction(plan: Heavy) -> dict:
    return {"plan_id": plan.plan_id, "scheduled_transaction_id": plan.scheduled_id}


CASES: tuple[tuple[str, Callable[[Heavy], dict]], ...] = (
    ("apply_categories", _apply_categories),
    ("set_category_budget", _set_category_budget),
    ("move_money", _move_money),
    ("flag_transactions", _flag_transactions),
    ("create_transactions", _create_transactions),
    ("update_transactions", _update_transactions),
    ("delete_transactions", _delete_transactions),
    ("split_transaction", _split_transaction),
    ("reconcile_account", _reconcile_account),
    ("set_category_target", _set_category_target),
    ("update_category", _update_category),
    ("create_category", _create_category),
    ("create_account", _create_account),
    ("create_category_group", _create_category_group),
    ("update_category_group", _update_category_group),
    ("rename_payee", _rename_payee),
    ("transfer_money", _transfer_money),
    ("create_scheduled_transaction", _create_scheduled_transaction),
    ("update_scheduled_transaction", _update_scheduled_transaction),
    ("delete_scheduled_transaction", _delete_scheduled_transaction),
)


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--calls", type=int, default=30, help="timed calls of each write")
    options = parser.parse_args()
    with throwaway_database():
        plan_id = seed_heavy(options.transactions, options.seed)
        plan = _heavy(plan_id)
        token = _read_write_token()
        os.environ["AVENIR_MCP_WRITE"] = "1"  # the served child lists the write tools
        with served() as service:
            asyncio.run(_measure(service, token, plan, options.calls))


def _heavy(plan_id: str) -> Heavy:
    from django.utils import timezone

    from avenir_mcp.sandbox.models import (
        Account,
        Category,
        Payee,
        ScheduledSubtransaction,
        ScheduledTransaction,
        Subtransaction,
        Transaction,
    )

    account, second_account = Account.objects.filter(
        plan_id=plan_id, on_budget=True, closed=False, deleted=False
    ).order_by("sort_order", "id")[:2]
    categories = Category.objects.filter(
        plan_id=plan_id, role=Category.ROLE_NONE, hidden=False, deleted=False, group__hidden=False
    ).exclude(group__name="Credit Card Payments")
    splits = Subtransaction.objects.filter(plan_id=plan_id).values("transaction_id")
    plain = (
        Transaction.objects.filter(plan_id=plan_id, account=account, deleted=False, transfer_account=None)
        .exclude(pk__in=splits)
        .exclude(amount=0)
        .order_by("-date", "id")[:ITEMS]
    )
    chosen = tuple(categories.order_by("name", "id")[:2])
    group = categories.exclude(group_id=chosen[0].group_id).order_by("group__name", "group_id").first()
    payee = (
        Payee.objects.filter(plan_id=plan_id, deleted=False, transfer_account_id=None).order_by("id").first()
    )
    today = timezone.localdate()
    split_schedules = ScheduledSubtransaction.objects.filter(plan_id=plan_id).values(
        "scheduled_transaction_id"
    )
    scheduled = (
        ScheduledTransaction.objects.filter(
            plan_id=plan_id, deleted=False, transfer_account=None, date_next__gt=today, account__closed=False
        )
        .exclude(pk__in=split_schedules)
        .order_by("id")
        .first()
    )
    if len(chosen) < 2 or group is None or payee is None or scheduled is None:
        raise SystemExit(
            "The heavy plan lacks two ordinary categories, a second group, a payee or a schedule."
        )
    return Heavy(
        plan_id=plan_id,
        today=today,
        account_id=account.id,
        second_account_id=second_account.id,
        cleared_balance=account.cleared_balance,
        categories=tuple(category.id for category in chosen),
        transactions=tuple(t.id for t in plain),
        amounts={t.id: t.amount for t in plain},
        group_id=group.group_id,
        payee_id=payee.id,
        scheduled_id=scheduled.id,
    )


def _read_write_token() -> str:
    from avenir_mcp.tokens.models import McpToken

    _token_row, token = McpToken.issue("bench writes")
    return token


async def _measure(service: Service, token: str, plan: Heavy, calls: int) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=CALL_TIMEOUT)
    )
    transport = streamable_http_client(f"{service.url}/mcp", http_client=http)
    async with http, Client(transport, mode="2026-07-28") as client:
        started = time.perf_counter()
        await _preview(client, "list_accounts", {"plan_id": plan.plan_id})
        figure("first_call_time", time.perf_counter() - started, "s", 2)
        for tool, build in CASES:
            service.reset_pacing()  # a whole hourly budget for this write's calls
            tool_arguments = build(plan)
            await _preview(client, tool, tool_arguments)  # untimed
            durations = await timed_async(partial(_preview, client, tool, tool_arguments), calls)
            figure(f"{tool}_preview_median", statistics.median(durations) * 1000, "ms", 1)
            figure(f"{tool}_preview_p95", nearest_rank(durations, 95) * 1000, "ms", 1)


async def _preview(client, tool: str, tool_arguments: dict) -> None:
    """One first call; anything but a preview (a refusal, an applied write) stops the benchmark."""
    result = await client.call_tool(tool, tool_arguments)
    if result.is_error:
        raise SystemExit(f"{tool} refused {tool_arguments}: {result.content[0].text}")
    status = (result.structured_content or {}).get("status")
    if tool != "list_accounts" and status != "confirmation_required":
        raise SystemExit(f"{tool} answered {status}, not a preview: {result.content[0].text}")


if __name__ == "__main__":
    main()
