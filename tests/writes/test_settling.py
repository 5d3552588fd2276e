"""Settling (`oplog.settling`): no half move stays in YNAB, no row stays pending or unknown.

Through the SDK's real client and the live sandbox: move_money's set-back after a 429, the
service setting a half move back once YNAB lets it, a source changed meanwhile (the exact
amount to set is named), an undo whose answer was lost (its original becomes undone), the
admin pointing at what needs attention, and the tools judged from YNAB's state without an undo
handler's help (a created category, a split, a lost reconciliation adjustment; created
transactions: test_lost_creations.py).
"""

from __future__ import annotations

import asyncio
import socket
import sys

import anyio
import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import Client as DjangoClient

from avenir_mcp.mcp_surface.http import McpHttpApp
from avenir_mcp.mcp_surface.server import HttpServers
from avenir_mcp.oplog import log, settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.shared_state import shared
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.tools.writes.assigned_pair import SET_BACK_WAIT_LIMIT
from avenir_mcp.ynab_client import get_ynab_client
from tests.helpers.move_faults import (
    AS_BEFORE,
    HALF_DONE,
    destination_fault,
    move_with_code,
    source_fault,
    spares_the_first_source_write,
)
from tests.helpers.write_cases.move_money import both, move_case
from tests.helpers.write_cases.set_category_budget import budget_case
from tests.writes.assigned_plans import BudgetHome, assigned, set_assigned
from tests.writes.checks import before, write_made, ynab
from tests.writes.fault_matrix import SCENARIOS
from tests.writes.harness import MODERN, WriteCase, connected, content, error_text

pytestmark = pytest.mark.anyio


@pytest.fixture
def case(budget: BudgetHome) -> WriteCase:
    return move_case(budget)


async def fresh(op: Operation) -> Operation:
    return await Operation.objects.aget(pk=op.pk)


async def half_move_left_pending(budget: BudgetHome, case: WriteCase) -> Operation:
    """The destination refused (429, Retry-After 1 s), and the set-back refused too (503): half in YNAB."""
    await spares_the_first_source_write(budget)
    await destination_fault("status", budget, status=429, delay_ms=1000)
    await source_fault("status", budget, status=503)
    result, op, requests = await move_with_code(case)
    assert requests == ["PATCH Groceries", "PATCH Dining Out", "PATCH Groceries"]
    assert error_text(result, case).startswith("Only half of the change is in YNAB")
    assert (op.status, await both(budget)) == ("pending", HALF_DONE)
    return op


async def test_after_a_429_the_set_back_waits_for_retry_after_and_is_sent(budget, case):
    await destination_fault("status", budget, status=429, delay_ms=1000)
    mark = await sync_to_async(faults.last_request_id)()

    result, op, requests = await move_with_code(case)

    served = [e for e in await sync_to_async(faults.requests_since)(mark) if e.method == "PATCH"]
    refused_at, set_back_at = served[1].created_at, served[2].created_at
    assert error_text(result, case).startswith(
        "Nothing moved: Dining Out could not be set to 150.00; so Groceries was set back to 80.00"
    )
    assert requests == ["PATCH Groceries", "PATCH Dining Out", "PATCH Groceries"]
    assert (served[1].status, served[2].status) == (429, 200)
    assert (set_back_at - refused_at).total_seconds() >= 1.0  # Retry-After: 1
    assert await both(budget) == AS_BEFORE
    assert (op.status, op.undo_data["outcome"]) == ("failed", "nothing_moved")


async def test_a_retry_after_beyond_the_limit_is_left_to_settling_which_sets_the_source_back(budget, case):
    await destination_fault("status", budget, status=429, delay_ms=(SET_BACK_WAIT_LIMIT + 60) * 1000)

    result, op, requests = await move_with_code(case)

    assert requests == ["PATCH Groceries", "PATCH Dining Out"]  # the set-back did not jump YNAB's pause
    assert "setting Groceries back must wait 120 seconds (YNAB answered 429)" in error_text(result, case)
    assert (op.status, await both(budget)) == ("pending", HALF_DONE)
    assert await settling.settle_plan(budget.id) == 0  # YNAB's pause is still on: nothing is sent
    assert ((await fresh(op)).status, await both(budget)) == ("pending", HALF_DONE)

    get_ynab_client().sender.pacer.forget()  # the pause is over
    settling.backoff.forget()  # and settling's own wait before trying the plan again
    assert await settling.settle_plan(budget.id) == 1

    settled = await fresh(op)
    assert await both(budget) == AS_BEFORE
    assert (settled.status, settled.undo_data["outcome"]) == ("failed", "nothing_moved")
    assert settled.error.startswith("Settled from YNAB's state: nothing moved: half of the move had landed")


async def test_settling_keeps_setting_the_source_back_until_it_lands(budget, case):
    op = await half_move_left_pending(budget, case)
    get_ynab_client().sender.pacer.forget()  # YNAB's pause after the 429 is over
    await source_fault("status", budget, status=500)

    await settling.settle_plan(budget.id)  # refused again: still pending, tried again later
    after_one = await fresh(op)
    mark = await sync_to_async(faults.last_request_id)()
    assert await settling.settle_plan(budget.id) == 0  # not at once: it waits a minute, then longer
    assert await sync_to_async(faults.requests_since)(mark) == []
    settling.backoff.forget()  # the minute has passed
    await settling.settle_plan(budget.id)
    after_two = await fresh(op)

    assert after_one.status == "pending"
    assert "Setting Groceries back failed (YNAB failed to handle this change (500)" in after_one.error
    assert after_one.settled_at is None
    assert (after_two.status, after_two.settled_at is not None) == ("failed", True)
    assert await both(budget) == AS_BEFORE


async def test_list_operations_settles_first_and_shows_what_happened(budget, case):
    op = await half_move_left_pending(budget, case)
    get_ynab_client().sender.pacer.forget()

    async with connected(MODERN) as client:
        listed = content(await client.call_tool("list_operations", {"plan_id": budget.id}))

    [entry] = [each for each in listed["operations"] if each["operation_id"] == op.pk]
    assert (entry["status"], entry["undoable"]) == ("failed", False)
    assert entry["note"].startswith("Settled from YNAB's state: nothing moved")
    assert await both(budget) == AS_BEFORE


async def test_a_source_changed_meanwhile_is_left_alone_and_the_exact_amount_is_named(budget, case):
    op = await half_move_left_pending(budget, case)
    get_ynab_client().sender.pacer.forget()
    await set_assigned(budget, budget.home.groceries, 60_000)  # the person changed it in YNAB

    await settling.settle_plan(budget.id)

    settled = await fresh(op)
    assert (settled.status, settled.undo_data["outcome"]) == ("failed", "half_done")
    assert settled.error == (
        "Settled from YNAB's state: half of the move was in YNAB, but Groceries changed since (now 60.00, "
        "not 50.00), so it was left as it is. To put the move back, set Groceries for "
        f"{budget.month} to 90.00 in YNAB (what it holds now plus the 30.00 the move took); the other "
        "category is as before."
    )
    assert (await both(budget))[0] == 60_000  # never overwritten
    assert await settling.needs_attention().filter(pk=op.pk).aexists()
    assert not await settling.unsettled().filter(pk=op.pk).aexists()


async def test_an_undo_whose_answer_was_lost_is_settled_and_its_original_becomes_undone(budget):
    budgeting = budget_case(budget)
    async with connected(MODERN) as client:
        original = content(await write_made(budgeting, client))["operation_id"]
        await sync_to_async(faults.inject)("drop_after_write", method="PATCH", path=budgeting.write_path)
        undo_args = {"plan_id": budget.id, "operation_id": original}
        first = content(await client.call_tool("undo_operation", undo_args))
        lost = await client.call_tool("undo_operation", {**undo_args, "confirmation": first["confirmation"]})
        assert lost.is_error
        undo_row = await Operation.objects.filter(undo_of_id=original).aget()
        assert undo_row.status == "unknown"
        assert (await Operation.objects.aget(pk=original)).status == "applied"  # the defect

        again = await client.call_tool("undo_operation", undo_args)

    assert again.is_error
    assert f"was already undone by operation {undo_row.pk}" in again.content[0].text
    assert (await fresh(undo_row)).status == "applied"
    done = await Operation.objects.aget(pk=original)
    assert (done.status, done.undone_by_id) == ("undone", undo_row.pk)
    assert await budgeting.state() == 120_000


async def test_the_admin_counts_what_needs_attention_and_filters_it(budget, case):
    op = await half_move_left_pending(budget, case)
    staff = await sync_to_async(User.objects.create_superuser)(f"owner-{op.pk}", password="x")
    browser = DjangoClient()
    await sync_to_async(browser.force_login)(staff)

    page = await sync_to_async(browser.get)("/admin/oplog/operation/", follow=True)
    filtered = await sync_to_async(browser.get)("/admin/oplog/operation/?attention=yes")

    assert "operation(s) need attention" in page.content.decode()
    assert op.pk in filtered.content.decode()


async def left_by_a_dead_process(budget: BudgetHome) -> Operation:
    """A set_category_budget row a killed process (of this host) left pending, its write landed."""
    h = budget.home
    logged = {"category_id": h.dining, "before": 120_000, "after": 150_000}
    op = await log.begin(
        plan_id=budget.id,
        tool="set_category_budget",
        subject={"category_id": h.dining},
        fingerprint="0" * 64,
        preview="Budget Dining Out?",
        confirmed_by="code",
        principal=Principal.local("a process that died"),
        undoable=True,
        undo_data={"month": budget.month, "categories": [logged]},
    )
    log.finished_writing(op)
    gone = await anyio.run_process([sys.executable, "-c", "import os; print(os.getpid())"])
    await Operation.objects.filter(pk=op.pk).aupdate(writer=f"{socket.gethostname()}:{int(gone.stdout)}")
    await set_assigned(budget, h.dining, 150_000)  # its write had landed before it died
    return op


@pytest.mark.subprocesses
async def test_the_service_settles_what_a_dead_process_left_pending_when_it_starts(budget, either_store):
    """The ASGI lifespan (what uvicorn runs at start-up) settles a row a killed process left pending."""
    op = await left_by_a_dead_process(budget)

    service = McpHttpApp(HttpServers.build())
    said: list[str] = []
    settled = anyio.Event()

    async def receive() -> dict:
        if not said:
            return {"type": "lifespan.startup"}
        await settled.wait()
        return {"type": "lifespan.shutdown"}

    async def send(message: dict) -> None:
        said.append(message["type"])

    async def watch() -> None:
        while (await fresh(op)).status == "pending":  # noqa: ASYNC110 (the service's rows)
            await anyio.sleep(0.05)
        settled.set()

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(service.serve_lifespan, receive, send)
            tasks.start_soon(watch)

    done = await fresh(op)
    assert said == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert (done.status, done.settled_at is not None) == ("applied", True)
    assert done.error == "Settled from YNAB's state: all 1 item(s) are in YNAB as the operation left them."


@pytest.mark.subprocesses
async def test_two_settling_rounds_at_once_settle_a_row_once(budget, either_store):
    op = await left_by_a_dead_process(budget)

    with anyio.fail_after(30):
        counts = await asyncio.gather(settling.settle_plan(budget.id), settling.settle_plan(budget.id))

    assert sorted(counts) == [0, 1]
    assert (await fresh(op)).status == "applied"


@pytest.mark.subprocesses
async def test_a_row_another_worker_is_settling_is_left_to_it(budget, shared_store):
    op = await left_by_a_dead_process(budget)
    theirs = shared().lock(f"settling:{op.pk}", timeout=60)
    assert theirs.acquire(blocking=False)

    assert await settling.settle_plan(budget.id) == 0
    assert (await fresh(op)).status == "pending"
    theirs.release()
    assert await settling.settle_plan(budget.id) == 1
    assert (await fresh(op)).status == "applied"


# --- tools judged from YNAB's state when their undo handler cannot -------------------------------


async def lost_then_settled(case: WriteCase, fault: str) -> Operation:
    """The case's write with its answer lost (`fault`, on its write request), then settled."""
    await sync_to_async(faults.inject)(fault, method=case.write_method, path=case.write_path)
    async with connected(MODERN) as client:
        assert (await write_made(case, client)).is_error
    op = await Operation.objects.filter(plan_id=case.plan_id, tool=case.tool).alatest("created_at")
    assert op.status == "unknown"
    await settling.settle_plan(case.plan_id)
    return await fresh(op)


async def test_a_created_category_whose_answer_was_lost_is_found_and_its_id_kept(live_service):
    case = await SCENARIOS["create_category"].case()
    op = await lost_then_settled(case, "drop_after_write")

    categories = (await ynab("GET", f"/plans/{case.plan_id}/categories"))["category_groups"]
    [pets] = [c["id"] for g in categories for c in g["categories"] if c["name"] == "Pets"]
    assert (op.status, op.undo_data["category_id"]) == ("applied", pets)
    assert op.error == f"Settled from YNAB's state: category ‘Pets’ is in its group ({pets}): it was created."


async def test_a_split_whose_transaction_was_recategorised_since_stays_unknown(live_service):
    case = await SCENARIOS["split_transaction"].case()
    await sync_to_async(faults.inject)("drop_before_write", method=case.write_method, path=case.write_path)
    async with connected(MODERN) as client:
        assert (await write_made(case, client)).is_error  # no answer: the row is unknown
    transaction_id = case.arguments["transaction_id"]
    body = {
        "transactions": [{"id": transaction_id, "category_id": case.arguments["lines"][0]["category_id"]}]
    }
    await ynab("PATCH", f"/plans/{case.plan_id}/transactions", json=body)  # the person, meanwhile

    await settling.settle_plan(case.plan_id)

    op = await Operation.objects.filter(plan_id=case.plan_id, tool="split_transaction").alatest("created_at")
    assert (op.status, op.settled_at is not None) == ("unknown", True)
    assert op.error == (
        f"Settled from YNAB's state: transaction {transaction_id} changed since (split otherwise or "
        "recategorised), so YNAB cannot tell whether this split landed. Check it with find_transactions."
    )


async def test_an_adjustment_whose_answer_was_lost_is_found_and_deleted_again(live_service):
    case = await SCENARIOS["reconcile_account"].case()  # the adjustment (POST) is its write request
    start = await before(case)
    op = await lost_then_settled(case, "drop_after_write")

    sent = [(e.method, e.status) for e in await sync_to_async(faults.requests_since)(start.mark)]
    writes = [each for each in sent if each[0] != "GET"]
    assert [method for method, _status in writes] == ["POST", "DELETE"]  # never marked; deleted once
    assert writes[1][1] == 200
    assert (op.status, await case.state()) == ("failed", start.state)
    assert op.error.startswith("Settled from YNAB's state: nothing was reconciled: the adjustment of +5.00 ")
    assert op.error.endswith(") and was deleted again, so the account is as before.")


async def test_a_split_whose_transaction_was_deleted_since_stays_unknown(live_service):
    case = await SCENARIOS["split_transaction"].case()
    await sync_to_async(faults.inject)("drop_before_write", method=case.write_method, path=case.write_path)
    async with connected(MODERN) as client:
        assert (await write_made(case, client)).is_error  # no answer: the row is unknown
    transaction_id = case.arguments["transaction_id"]
    await ynab("DELETE", f"/plans/{case.plan_id}/transactions/{transaction_id}")  # the person, meanwhile

    await settling.settle_plan(case.plan_id)

    op = await Operation.objects.filter(plan_id=case.plan_id, tool="split_transaction").alatest("created_at")
    assert (op.status, op.settled_at is not None) == ("unknown", True)
    assert op.error == (
        f"Settled from YNAB's state: transaction {transaction_id} was deleted since, so YNAB cannot tell "
        "whether it was split."
    )


async def test_a_set_back_whose_answer_is_lost_is_read_back_next_round(budget, case):
    op = await half_move_left_pending(budget, case)
    get_ynab_client().sender.pacer.forget()
    await source_fault("drop_before_write", budget)

    await settling.settle_plan(budget.id)
    after_one = await fresh(op)
    settling.backoff.forget()  # the next round
    await settling.settle_plan(budget.id)
    after_two = await fresh(op)

    assert (after_one.status, after_one.settled_at) == ("pending", None)
    assert after_one.error.endswith("Setting Groceries back got no answer; the next round reads it back.")
    assert (after_two.status, after_two.undo_data["outcome"]) == ("failed", "nothing_moved")
    assert await both(budget) == AS_BEFORE


async def test_a_source_changed_after_a_lost_first_write_stays_unknown_naming_the_amount_to_set(budget, case):
    await source_fault("drop_after_write", budget)

    async def unreadable() -> None:
        await source_fault("status", budget, method="GET", status=500)

    _result, op, _requests = await move_with_code(case, arm=unreadable)
    assert op.status == "unknown"
    await set_assigned(budget, budget.home.groceries, 60_000)  # the person changed it in YNAB

    await settling.settle_plan(budget.id)

    settled = await fresh(op)
    assert (settled.status, settled.settled_at is not None) == ("unknown", True)
    assert settled.error == (
        "Settled from YNAB's state: YNAB cannot tell whether the move's first change landed: Groceries is "
        "now 60.00 (neither 80.00 nor 50.00) and the other category is as before. If it had landed, set "
        f"Groceries for {budget.month} to 90.00 in YNAB to put the move back."
    )
    assert (await both(budget))[0] == 60_000


async def pending_half_move(
    budget: BudgetHome, source: tuple[str, int, int], destination: tuple[str, int, int]
):
    """A move_money row this process left pending with its source lowered and its destination as
    before (half of it in YNAB), as `assigned_pair` leaves one whose set-back could not be sent."""
    categories = [{"category_id": c, "before": b, "after": a} for c, b, a in (source, destination)]
    op = await log.begin(
        plan_id=budget.id,
        tool="move_money",
        subject={"from_category_id": source[0], "to_category_id": destination[0]},
        fingerprint="0" * 64,
        preview="Move money?",
        confirmed_by="code",
        principal=Principal.local("settling test"),
        undoable=True,
        undo_data={"month": budget.month, "categories": categories},
    )
    log.finished_writing(op)
    await set_assigned(budget, source[0], source[2])
    return op


async def test_a_second_half_move_waits_for_the_pause_a_first_set_back_met(budget):
    h = budget.home
    first = await pending_half_move(budget, (h.groceries, 80_000, 50_000), (h.dining, 120_000, 150_000))
    second = await pending_half_move(budget, (h.rent, 20_000, 10_000), (h.dining, 120_000, 130_000))
    await source_fault("status", budget, status=429, delay_ms=60_000)  # Retry-After: 60

    try:
        await settling.settle_plan(budget.id)
        paused = get_ynab_client().sender.pacer.paused_until()
    finally:
        get_ynab_client().sender.pacer.forget()

    one, two = await fresh(first), await fresh(second)
    assert (one.status, two.status) == ("pending", "pending")
    assert "Setting Groceries back failed (" in one.error
    assert two.error == (
        "Settled from YNAB's state: half of the move is in YNAB: Rent is 10.00 for "
        f"{budget.month}, the other category as before. YNAB asked to wait (429); Rent is set back to 20.00 "
        f"after {paused:%H:%M} UTC."
    )
    assert (await assigned(budget, h.rent), await assigned(budget, h.groceries)) == (10_000, 50_000)
