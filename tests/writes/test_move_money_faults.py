"""move_money's two writes under every fault the sandbox can inject, one branch of
`tools.writes.assigned_pair` each. After each: both categories as YNAB holds them, the request
log (which write went out, in what order, none resent), the log row and what it records.

The move: 30.00 from Groceries (80.00 assigned) to Dining Out (120.00), this month.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
import httpx2
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings

from avenir_mcp.oplog import log, settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.tools.writes.assigned_pair import MOST_REQUESTS, Pair, Step, write_pair
from avenir_mcp.ynab_client import YnabClient, YnabError, get_ynab_client
from avenir_mcp.ynab_client.errors import WriteFailed
from avenir_mcp.ynab_client.pacing import Pacer
from tests.helpers.garbled_answers import GarblingTransport
from tests.helpers.move_faults import (
    AS_BEFORE,
    HALF_DONE,
    destination_fault,
    move_with_code,
    served,
    source_fault,
    spares_the_first_source_write,
)
from tests.helpers.write_cases.move_money import MOVED, both, move_case
from tests.writes.assigned_plans import (
    DINING_ASSIGNED,
    GROCERIES_ASSIGNED,
    BudgetHome,
    ready_to_assign,
)
from tests.writes.harness import (
    LEGACY,
    MODERN,
    WriteCase,
    before,
    connected,
    content,
    error_text,
    writes_since,
)

pytestmark = pytest.mark.anyio

MOVED_STATE = (GROCERIES_ASSIGNED - MOVED, DINING_ASSIGNED + MOVED)


@pytest.fixture
def case(budget: BudgetHome) -> WriteCase:
    return move_case(budget)


# --- (a) the second write is refused: the source is set back ------------------------------------


async def test_a_refused_second_write_sets_the_source_back_and_nothing_moves(budget, case):
    ready = await ready_to_assign(budget)
    await destination_fault("status", budget, status=500)

    result, op, requests = await move_with_code(case)

    text = error_text(result, case)
    assert text.startswith(
        "Nothing moved: Dining Out could not be set to 150.00; so Groceries was set back to 80.00 "
        "and both categories are as before. YNAB failed to handle this change (500)"
    )
    assert await both(budget) == AS_BEFORE
    assert await ready_to_assign(budget) == ready
    assert requests == ["PATCH Groceries", "PATCH Dining Out", "PATCH Groceries"]
    assert (op.status, op.error) == ("failed", text)
    assert op.undo_data["outcome"] == "nothing_moved"
    assert (op.undo_data["landed"], op.undo_data["unsure"]) == ([], [])


# --- (b) the second write lands but its answer is lost: read back, the move is complete --------------


async def test_a_lost_answer_to_the_second_write_is_read_back_and_the_move_is_complete(budget, case):
    await destination_fault("drop_after_write", budget)

    result, op, requests = await move_with_code(case)

    answer = content(result)
    assert answer["status"] == "applied"
    assert answer["operation_id"] == op.pk
    assert await both(budget) == MOVED_STATE
    assert requests == ["PATCH Groceries", "PATCH Dining Out", "GET Dining Out"]
    assert op.status == "applied"
    case.check_log(op)
    assert "outcome" not in op.undo_data


# --- (c) the second write neither lands nor answers: read back, the source is set back ------------------


async def test_a_second_write_lost_before_it_ran_is_read_back_and_the_source_set_back(budget, case):
    await destination_fault("drop_before_write", budget)

    result, op, requests = await move_with_code(case)

    text = error_text(result, case)
    assert text == (
        "Nothing moved: Dining Out could not be set to 150.00; so Groceries was set back to 80.00 and "
        "both categories are as before. No answer came back for Dining Out and reading it back shows "
        "it was not made; if YNAB still processes it, this service finds it and puts it back."
    )
    assert await both(budget) == AS_BEFORE
    assert requests == ["PATCH Groceries", "PATCH Dining Out", "GET Dining Out", "PATCH Groceries"]
    # a lost request may still be processed: the row stays open for settling (tests/writes/test_settling.py)
    assert (op.status, op.undo_data["outcome"]) == ("unknown", "nothing_moved")


async def test_a_lost_second_write_that_cannot_be_read_back_is_unknown_and_nothing_is_undone_blindly(
    budget, case
):
    await destination_fault("drop_before_write", budget)

    async def unreadable() -> None:
        await destination_fault("status", budget, method="GET", status=500)

    result, op, requests = await move_with_code(case, arm=unreadable)

    text = error_text(result, case)
    assert text.startswith("Only half of the change may be in YNAB: Groceries is now 50.00, but no answer")
    assert f"Check Dining Out for {budget.month} (get_category_balances): at 150.00 all is done; " in text
    assert "at 120.00: set Groceries back to 80.00 in YNAB, or call undo_operation" in text
    assert await both(budget) == HALF_DONE
    assert requests == ["PATCH Groceries", "PATCH Dining Out", "GET Dining Out"]
    assert op.status == "unknown"
    assert op.undoable
    assert (op.undo_data["landed"], op.undo_data["unsure"]) == ([budget.home.groceries], [budget.home.dining])


# --- (d) setting the source back fails too: the row stays pending, settling goes on, the amount is named ---


async def test_when_setting_the_source_back_fails_too_the_error_names_the_amount_to_set(budget, case):
    await spares_the_first_source_write(budget)
    await destination_fault("status", budget, status=500)
    await source_fault("status", budget, status=503)

    result, op, requests = await move_with_code(case)

    text = error_text(result, case)
    assert text.startswith(
        "Only half of the change is in YNAB: Groceries is now 50.00 assigned, but Dining Out could not "
        "be set to 150.00; and setting Groceries back failed too (YNAB failed to handle this change (503)"
    )
    assert (
        f"This service keeps setting Groceries for {budget.month} back to 80.00 (the operation stays pending "
        "until it has, and stops if Groceries changes meanwhile); you may also set it to 80.00 in YNAB "
        "yourself." in text
    )
    assert await both(budget) == HALF_DONE
    assert requests == ["PATCH Groceries", "PATCH Dining Out", "PATCH Groceries"]
    assert (op.status, op.error) == ("pending", text)  # settling keeps putting it back (tests/settling)
    assert op.undo_data["outcome"] == "half_done"
    assert op.undo_data["landed"] == [budget.home.groceries]


async def test_when_setting_the_source_back_gets_no_answer_the_error_still_names_the_amount(budget, case):
    await spares_the_first_source_write(budget)
    await destination_fault("status", budget, status=500)
    await source_fault("drop_before_write", budget)

    result, op, requests = await move_with_code(case)

    text = error_text(result, case)
    assert "and setting Groceries back got no answer." in text
    assert "you may also set it to 80.00 in YNAB yourself." in text
    assert await both(budget) == HALF_DONE
    assert requests == ["PATCH Groceries", "PATCH Dining Out", "PATCH Groceries"]
    assert (op.status, op.undo_data["unsure"]) == ("pending", [budget.home.groceries])


# --- the connection goes while the outcome is being logged: the row still says it ---------------------


async def move_cut_off_while_logging(
    case: WriteCase, transition: str, status: str | None = None
) -> Operation:
    """The move confirmed with a code, its connection gone at the moment the log records the
    outcome (`log.<transition>`, only for `status` when given): the agent's client and its
    session end (in memory, at the older protocol, the call's handler runs in the session's own
    task), so everything the call was doing is cancelled there. The log row after it.

    The cancellation lands at the recording's first await (the checkpoint stands for it: a
    database call awaited in a thread), deterministically, whatever the machine's load.
    """
    record = getattr(log, transition)
    connection = anyio.CancelScope()
    cut_at: list[str] = []

    async def recorded_as_the_connection_goes(*op, **fields):
        if transition == "begin":  # the insert, run in its thread, is done when the call is cancelled
            row = await record(**fields)
            cut_at.append(transition)
            connection.cancel()
            await anyio.lowlevel.checkpoint()
            return row
        if status is None or fields["status"] == status:
            cut_at.append(op[0].pk)
            connection.cancel()
            await anyio.lowlevel.checkpoint()
        return await record(*op, **fields)

    async with connected(LEGACY) as client:
        first = content(await client.call_tool(case.tool, case.arguments))
    with pytest.MonkeyPatch.context() as patched, connection:
        patched.setattr(log, transition, recorded_as_the_connection_goes)
        async with connected(LEGACY) as client:
            await client.call_tool(case.tool, {**case.arguments, "confirmation": first["confirmation"]})
    assert connection.cancelled_caught  # the call never answered: its connection was gone
    op = await Operation.objects.filter(plan_id=case.plan_id).order_by("-created_at").afirst()
    assert cut_at == [op.pk if transition != "begin" else transition]
    return op


async def test_a_call_cut_off_while_its_half_move_is_logged_leaves_the_row_pending_for_settling(budget, case):
    """The half move's row keeps its error and what landed although the call is cancelled as it
    is written, so the person reads what happened and settling sets the source back."""
    await spares_the_first_source_write(budget)
    await destination_fault("status", budget, status=500)
    await source_fault("status", budget, status=503)

    op = await move_cut_off_while_logging(case, "keep_pending")

    assert await both(budget) == HALF_DONE
    assert op.status == "pending"
    assert op.error.startswith(
        "Only half of the change is in YNAB: Groceries is now 50.00 assigned, but Dining Out could not "
        "be set to 150.00; and setting Groceries back failed too (YNAB failed to handle this change (503)"
    )
    assert (op.undo_data["outcome"], op.undo_data["landed"]) == ("half_done", [budget.home.groceries])
    assert not log.being_written(op.pk)  # settling may judge it now

    assert await settling.settle_plan(budget.id) == 1

    settled = await Operation.objects.aget(pk=op.pk)
    assert await both(budget) == AS_BEFORE
    assert (settled.status, settled.undo_data["outcome"]) == ("failed", "nothing_moved")
    assert settled.error.startswith("Settled from YNAB's state: nothing moved: half of the move had landed")


async def test_a_call_cut_off_as_its_row_begins_sends_nothing_and_leaves_the_row_to_settling(budget, case):
    """Cut off while the row is inserted (in a thread: the insert goes on): the row is completed
    as interrupted and no longer counts as being written here, so settling judges it at once
    (nothing reached YNAB) instead of leaving it pending until the process restarts."""
    start = await before(case)

    op = await move_cut_off_while_logging(case, "begin")

    assert await both(budget) == AS_BEFORE
    assert (op.status, op.error) == (
        "unknown",
        "Interrupted by CancelledError after it began: the change may or may not be in YNAB.",
    )
    assert not log.being_written(op.pk)
    assert await settling.settle_plan(budget.id) == 1
    settled = await Operation.objects.aget(pk=op.pk)
    assert (settled.status, await both(budget)) == ("failed", AS_BEFORE)
    assert await writes_since(case, start.mark) == 0  # nothing was sent


async def test_a_call_cut_off_while_its_applied_move_is_logged_still_logs_it_applied(budget, case):
    """YNAB holds the whole move: the row says applied, with the undo data, not pending."""
    op = await move_cut_off_while_logging(case, "complete", status="applied")

    assert await both(budget) == MOVED_STATE
    assert (op.status, op.error) == ("applied", "")
    assert op.completed_at is not None
    case.check_log(op)
    assert not await settling.unsettled().filter(pk=op.pk).aexists()


# --- the first write's answer lost: read back before anything else --------------------------------------


async def test_a_lost_answer_to_the_first_write_is_read_back_and_the_move_goes_on(budget, case):
    await source_fault("drop_after_write", budget)

    result, op, requests = await move_with_code(case)

    assert content(result)["status"] == "applied"
    assert await both(budget) == MOVED_STATE
    assert requests == ["PATCH Groceries", "GET Groceries", "PATCH Dining Out"]
    assert op.status == "applied"


async def test_a_first_write_lost_before_it_ran_moves_nothing_and_sends_nothing_else(budget, case):
    await source_fault("drop_before_write", budget)

    result, op, requests = await move_with_code(case)

    text = error_text(result, case)
    assert text.startswith("Nothing moved: no answer came back for the change of Groceries")
    assert text.endswith("If YNAB still processes it, this service finds it and puts it back.")
    assert await both(budget) == AS_BEFORE
    assert requests == ["PATCH Groceries", "GET Groceries"]
    assert (op.status, op.undo_data["outcome"]) == ("unknown", "nothing_moved")


async def test_a_lost_first_write_that_cannot_be_read_back_is_unknown_and_nothing_else_is_sent(budget, case):
    await source_fault("drop_after_write", budget)

    async def unreadable() -> None:
        await source_fault("status", budget, method="GET", status=500)

    result, op, requests = await move_with_code(case, arm=unreadable)

    text = error_text(result, case)
    assert text.startswith("No answer came back for the change of Groceries to 50.00")
    assert "so nothing else was sent" in text
    assert await both(budget) == HALF_DONE  # it had landed; the person is told how to check
    assert requests == ["PATCH Groceries", "GET Groceries"]
    assert (op.status, op.undo_data["unsure"]) == ("unknown", [budget.home.groceries])


# --- the hour's request budget ----------------------------------------------------------------------------


async def test_it_sends_nothing_when_the_hour_could_not_cover_a_rollback(budget, case, monkeypatch):
    pacer = get_ynab_client().sender.pacer
    async with connected(MODERN) as client:
        first = content(await client.call_tool(case.tool, case.arguments))
        mark = await sync_to_async(faults.last_request_id)()
        # the plan read takes one; then one request fewer than the worst case remains
        monkeypatch.setattr(settings, "AVENIR_MCP_YNAB_HOURLY_LIMIT", pacer.used() + MOST_REQUESTS)
        result = await client.call_tool(case.tool, {**case.arguments, "confirmation": first["confirmation"]})

    assert await served(case, mark) == []
    text = error_text(result, case)
    assert text.startswith(f"Not sent: this change takes up to {MOST_REQUESTS} requests to YNAB")
    assert "only 4 remain" in text
    assert await both(budget) == AS_BEFORE
    op = await Operation.objects.filter(plan_id=case.plan_id).order_by("-created_at").afirst()
    assert op.status == "failed"


# --- an answer the sandbox cannot garble: a 2xx YNAB sent but nobody could read -------------------------


async def test_a_second_write_answered_2xx_but_unreadable_counts_as_made_and_nothing_is_undone(budget, case):
    client = sandbox_client(Pacer(history=False), GarblingTransport(budget.home.dining))
    mark = await sync_to_async(faults.last_request_id)()

    try:
        await write_pair(client, the_move(budget, settled_later=False))
    finally:
        await client.aclose()

    assert await served(case, mark) == ["PATCH Groceries", "PATCH Dining Out"]
    assert await both(budget) == MOVED_STATE


# --- what happens meanwhile, elsewhere: another request's 429, another app's change ----------------------


class MeddlingTransport(httpx2.AsyncBaseTransport):
    """The live sandbox over real HTTP; `meddle()` runs once, around the first request to a path
    ending with `path_end` by `method`: right before it goes out, or right after its answer
    (`after`): what happened meanwhile, elsewhere."""

    def __init__(
        self, method: str, path_end: str, meddle: Callable[[], Awaitable[None]], *, after: bool = False
    ) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.method, self.path_end, self.meddle, self.after = method, path_end, meddle, after

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        meddle = self.meddle
        if request.method != self.method or not request.url.path.endswith(self.path_end):
            meddle = None
        if meddle is not None:
            self.meddle = None
        if meddle is not None and not self.after:
            await meddle()
        response = await self.inner.handle_async_request(request)
        if meddle is not None and self.after:
            await meddle()
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def sandbox_client(pacer: Pacer, transport: httpx2.AsyncBaseTransport | None = None) -> YnabClient:
    return YnabClient(
        base_url=settings.AVENIR_MCP_YNAB_URL, token=settings.SANDBOX_TOKEN, pacer=pacer, transport=transport
    )


def the_move(budget: BudgetHome, *, settled_later: bool = True) -> Pair:
    """Groceries → Dining Out, 50.00 of this month, as move_money asks it (`settled_later`)."""
    h = budget.home
    return Pair(
        plan_id=budget.id,
        month=h.this_month,
        first=Step(h.groceries, "Groceries", GROCERIES_ASSIGNED, GROCERIES_ASSIGNED - MOVED),
        second=Step(h.dining, "Dining Out", DINING_ASSIGNED, DINING_ASSIGNED + MOVED),
        currency=None,
        check_hint="Check both categories.",
        settled_later=settled_later,
    )


async def failed_move(budget: BudgetHome, client: YnabClient, *others: YnabClient) -> WriteFailed:
    """`the_move` made with `client`, which must fail; every client closed after."""
    try:
        with pytest.raises(WriteFailed) as failed:
            await write_pair(client, the_move(budget))
    finally:
        for each in (client, *others):
            await each.aclose()
    return failed.value


async def test_a_429_to_another_request_between_the_two_writes_leaves_the_source_for_settling(budget, case):
    """Another request of the same token is answered 429 (Retry-After 600 s) after the first write:
    pacing refuses the second, and the set-back would wait longer than a call may: settling sends it."""
    pacer = Pacer(history=False, limit=None)
    other = sandbox_client(pacer)
    await sync_to_async(faults.inject)(
        "status", method="GET", path=r"/categories$", status=429, delay_ms=600_000
    )

    async def another_request_is_rate_limited() -> None:
        with pytest.raises(YnabError) as refused:
            await other.get_categories(budget.id)
        assert refused.value.status == 429

    client = sandbox_client(
        pacer, MeddlingTransport("PATCH", budget.home.groceries, another_request_is_rate_limited, after=True)
    )
    mark = await sync_to_async(faults.last_request_id)()
    failure = await failed_move(budget, client, other)

    text = failure.message
    assert text.startswith(
        "Only half of the change is in YNAB: Groceries is now 50.00 assigned, but Dining Out could not "
        "be set to 150.00; and setting Groceries back failed too (Not sent: YNAB answered 'too many "
        "requests' (429)"
    )
    assert "This service keeps setting Groceries for" in text
    assert await served(case, mark) == ["PATCH Groceries"]  # the second was never sent, nor the set-back
    assert await both(budget) == HALF_DONE
    assert failure.outcome == "pending"  # settling keeps setting Groceries back
    assert failure.undo_data.landed == (budget.home.groceries,)


async def test_a_lost_first_write_read_back_at_another_amount_is_unknown_and_nothing_else_is_sent(
    budget, case
):
    """The first write is lost before it ran, and another app sets Groceries to 70.00 before the
    read-back: neither the amount before nor the one sent, so nothing is assumed."""
    await source_fault("drop_before_write", budget)
    another_app = sandbox_client(Pacer(history=False, limit=None))

    async def another_app_sets_groceries() -> None:
        await another_app.patch_month_category(
            budget.id, budget.home.this_month, budget.home.groceries, 70_000
        )

    client = sandbox_client(
        Pacer(history=False, limit=None),
        MeddlingTransport("GET", budget.home.groceries, another_app_sets_groceries),
    )
    mark = await sync_to_async(faults.last_request_id)()
    failure = await failed_move(budget, client, another_app)

    text = failure.message
    assert text.startswith("No answer came back for the change of Groceries to 50.00")
    assert (
        "reading it back shows 70.00, neither the amount before nor the one sent, so nothing else was sent"
        in text
    )
    assert await served(case, mark) == ["PATCH Groceries", "PATCH Groceries", "GET Groceries"]
    assert await both(budget) == (70_000, DINING_ASSIGNED)
    assert failure.outcome == "unknown"
    assert failure.undo_data.unsure == (budget.home.groceries,)


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (b'{"data": {}}', "YNAB's answer when reading it back could not be understood"),
        (b'{"data": {"category": {"budgeted": null}}}', "reading it back shows None, neither the amount"),
    ],
)
async def test_a_lost_second_write_whose_read_back_says_no_amount_is_unknown(budget, case, answer, why):
    """The second write's answer is lost and the read-back's 200 holds no category, or no amount:
    the move is unknown, nothing is set back blindly."""
    await destination_fault("drop_after_write", budget)
    client = sandbox_client(
        Pacer(history=False, limit=None), GarblingTransport(budget.home.dining, method="GET", body=answer)
    )
    mark = await sync_to_async(faults.last_request_id)()
    failure = await failed_move(budget, client)

    text = failure.message
    assert text.startswith("Only half of the change may be in YNAB: Groceries is now 50.00, but no answer")
    assert why in text
    assert await served(case, mark) == ["PATCH Groceries", "PATCH Dining Out", "GET Dining Out"]
    assert await both(budget) == MOVED_STATE  # it had landed: the person is told how to check
    assert failure.outcome == "unknown"
    assert failure.undo_data.unsure == (budget.home.dining,)
