"""reconcile_account through the SDK's real client: the analysis first, every confirmation path,
the adjustment, faults between its two requests, refusals."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal

import pytest
from asgiref.sync import sync_to_async

from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.sandbox.models import Account, Plan
from avenir_mcp.tools.logic.reconcile import ADJUSTMENT_PAYEE
from avenir_mcp.tools.writes.reconcile_account import CHECK, NOT_MOVED
from tests.helpers.plan_copies import demo_plan_copy
from tests.helpers.write_cases.reconcile_account import TOOL, cleared_balance, reconciling, set_cleared
from tests.writes.checks import latest_operation, requests_since, says_yes, standing, ynab
from tests.writes.harness import (
    ANSWER_WAYS,
    CONFIRMED_PATHS,
    FAULT_PATHS,
    MODERN,
    Env,
    WriteCase,
    answered_after,
    before,
    call,
    case_shared_by_module,
    connected,
    content,
    documented_fingerprint,
    error_text,
    expect_nothing_written,
    own_paths,
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
)
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio

# The case with an adjustment sends two requests: the representative one (harness.REPRESENTATIVE_TOOLS)
# runs every path; without one, the marking alone runs the tool's own paths.
PATHS = paths_for("reconcile_account", CONFIRMED_PATHS)
MARKING_PATHS = own_paths(CONFIRMED_PATHS)
FAULTS = paths_for("reconcile_account", FAULT_PATHS)


@pytest.fixture
async def case(home: Household) -> WriteCase:
    return await reconciling(home, gap=0)


@pytest.fixture
async def adjusting(home: Household) -> WriteCase:
    return await reconciling(home, gap=5_000)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: reconciling(household(), gap=0)) as case:
        yield case


@pytest.fixture(scope="module")
def shared_adjusting(live_service) -> Iterator[WriteCase]:
    """`adjusting` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: reconciling(household(), gap=5_000)) as case:
        yield case


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write(MARKING_PATHS))
async def test_each_path_marks_exactly_when_the_person_agreed(path, case, settings, monkeypatch):
    await MARKING_PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write_nothing(MARKING_PATHS))
async def test_each_path_without_a_yes_marks_nothing(path, shared_case, settings, monkeypatch):
    await MARKING_PATHS[path](shared_case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write(PATHS))
async def test_each_path_adjusts_and_marks_exactly_when_the_person_agreed(
    path, adjusting, settings, monkeypatch
):
    await PATHS[path](adjusting, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write_nothing(PATHS))
async def test_each_path_without_a_yes_adjusts_and_marks_nothing(
    path, shared_adjusting, settings, monkeypatch
):
    await PATHS[path](shared_adjusting, Env(settings, monkeypatch))


@pytest.mark.parametrize("way", ANSWER_WAYS)
@pytest.mark.parametrize("gap", [0, 5_000])
async def test_the_same_request_is_accepted_when_the_count_to_mark_moved_before_the_answer(home, gap, way):
    """One cleared transaction reconciled in YNAB's app meanwhile: the cleared balance, so the difference,
    is the same; the person's yes marks the ones still to mark, and the log names only those."""
    case = await reconciling(home, gap=gap)
    await before(case)
    already = case.extra["to_reconcile"][0]

    result = await answered_after(way, case, lambda: set_cleared(home.id, [already], "reconciled"))

    answer = content(result)
    assert answer["status"] == "applied", answer
    assert await case.state() == case.expected_after
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert op.fingerprint == documented_fingerprint(
        home.id, {"account_id": home.home.checking, "bank_balance": case.extra["bank"], "difference": gap}
    )
    assert sorted(op.undo_data["reconciled_ids"]) == [t for t in case.extra["to_reconcile"] if t != already]
    assert await cleared_balance(home.id, home.home.checking) == case.extra["bank"]


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_of_the_marking_leaves_an_honest_log_and_nothing_resent(
    path, case, settings, monkeypatch
):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_with_an_adjustment_the_preview_says_so_and_the_result_names_it(adjusting, home):
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, adjusting))

    count = len(adjusting.extra["to_reconcile"])
    assert person.messages == [
        f"Reconcile Checking: mark {count} cleared transaction(s) reconciled?\n"
        f"An adjustment of +5.00 dated {today().isoformat()} is entered first, so the cleared balance "
        "equals the bank's."
    ]
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert answer["adjustment"] == {
        "transaction_id": op.undo_data["adjustment_id"],
        "date": today().isoformat(),
        "amount": "5.00",
    }
    assert answer["message"] == (
        f"Marked {count + 1} transaction(s) on Checking reconciled, after entering an adjustment of +5.00. "
        f"{NOT_MOVED} Done as operation {op.pk}; undo_operation with that id reverses it."
    )
    assert await cleared_balance(home.id, home.home.checking) == adjusting.extra["bank"]


async def test_the_marking_refused_after_the_adjustment_landed_deletes_the_adjustment_again(adjusting, home):
    """Nothing half done: the adjustment that landed is deleted again (once), and the result says so."""
    start = await standing(adjusting)
    async with connected(MODERN) as client:
        first = content(await call(client, adjusting))
        await sync_to_async(faults.inject)("status", method="PATCH", path=adjusting.write_path, status=500)
        mark = await sync_to_async(faults.last_request_id)()
        result = await call(client, adjusting, confirmation=first["confirmation"])
    op = await latest_operation(adjusting)

    adjustment_id = op.undo_data["adjustment_id"]
    text = error_text(result, adjusting)
    count = len(adjusting.extra["to_reconcile"]) + 1
    assert text.startswith(
        f"Marking the {count} transaction(s) reconciled failed, so none is: YNAB failed to handle this "
        "change (500)"
    )
    assert text.endswith(
        f"The adjustment of +5.00 entered first (transaction {adjustment_id}) was deleted again, so nothing "
        f"changed; calling reconcile_account again starts over. The log keeps this as operation {op.pk} "
        "(failed)."
    )
    assert (op.status, op.error) == ("failed", text)
    assert await adjusting.state() == start.state  # nothing marked, no adjustment
    sent = [r.split()[0] for r in await requests_since(mark) if not r.startswith("GET")]
    assert sent == ["POST", "PATCH", "DELETE"]  # each once

    async with connected(MODERN, says_yes()) as client:  # the way out the message gives
        again = content(await call(client, adjusting))
    assert again["status"] == "applied"
    assert await adjusting.state() == adjusting.expected_after


async def test_the_marking_lost_after_the_adjustment_landed_is_unknown_and_undo_takes_both_back(
    adjusting, home
):
    start = await standing(adjusting)
    async with connected(MODERN) as client:
        first = content(await call(client, adjusting))
        await sync_to_async(faults.inject)("drop_after_write", method="PATCH", path=adjusting.write_path)
        result = await call(client, adjusting, confirmation=first["confirmation"])
    op = await latest_operation(adjusting)

    text = error_text(result, adjusting)
    count = len(adjusting.extra["to_reconcile"]) + 1
    assert text == (
        f"The adjustment of +5.00 is in YNAB (transaction {op.undo_data['adjustment_id']}), but no answer "
        f"came back to marking the {count} transaction(s) reconciled: they may or may not be, and it is "
        f"not sent again. {CHECK} The log keeps this as operation {op.pk} (unknown)."
    )
    assert (op.status, op.error) == ("unknown", text)
    assert await adjusting.state() == adjusting.expected_after  # the sandbox did mark them
    assert sorted(op.undo_data["reconciled_ids"]) == adjusting.extra["to_reconcile"]

    async with connected(MODERN, says_yes()) as client:
        undone = content(
            await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": op.pk})
        )
    assert (undone["status"], undone["restored"]) == ("applied", len(adjusting.extra["to_reconcile"]) + 1)
    assert await adjusting.state() == start.state


async def test_a_difference_is_analysed_first_and_nothing_is_asked_or_written(home):
    h = home.home
    day = (utc_today() - timedelta(days=3)).isoformat()
    for days_ago in (5, 4):
        body = {
            "transaction": {
                "account_id": h.checking,
                "date": (utc_today() - timedelta(days=days_ago)).isoformat(),
                "amount": -89_990,
                "payee_name": f"CB DECATHLON {days_ago:02d}/01",
                "cleared": "cleared",
            }
        }
        await ynab("POST", f"/plans/{home.id}/transactions", json=body)
    case = await reconciling(home, gap=-30_000)  # the bank has the split purchase already
    case.arguments["adjust"] = False
    start = await standing(case)
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, case))

    analysis = answer["analysis"]
    duplicates = analysis.pop("possible_duplicates")
    uncleared = analysis.pop("uncleared")
    cleared = await cleared_balance(home.id, h.checking)
    assert answer["status"] == "difference_found"
    assert answer["message"] == (
        "The bank's balance differs from the cleared balance by -30.00; 1 uncleared transaction(s) equal it. "
        "Nothing was changed: review the gap with the person and call again, with adjust: true only if they "
        "want an adjustment entered."
    )
    assert analysis == {
        "bank_balance": f"{Decimal(cleared - 30_000) / 1000:.2f}",
        "cleared_balance": f"{Decimal(cleared) / 1000:.2f}",
        "working_balance": analysis["working_balance"],
        "difference": "-30.00",
        "to_reconcile_count": len(case.extra["to_reconcile"]),  # the two DECATHLON among them
        "uncleared_count": 3,
        "explained_by": [home.split],
    }
    assert {u["transaction_id"] for u in uncleared} == {home.salary, home.split, home.transfer}
    assert {"transaction_id": home.split, "date": day, "payee": "BIG STORE", "amount": "-30.00"} in uncleared
    assert len(duplicates) == 1
    assert (answer["operation_id"], answer["preview"], answer["confirmation"], answer["adjustment"]) == (
        None,
        None,
        None,
        None,
    )
    assert person.questions == []
    await expect_nothing_written(case, start)


async def test_nothing_to_reconcile_asks_nothing(home):
    case = await reconciling(home, gap=0)
    await set_cleared(home.id, case.extra["to_reconcile"], "reconciled")
    start = await standing(case)
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, case))

    assert answer["status"] == "nothing_to_do"
    assert answer["message"] == (
        "Nothing to reconcile: the cleared balance equals the bank's and every cleared transaction is "
        "reconciled already."
    )
    assert person.questions == []
    await expect_nothing_written(case, start)


@pytest.fixture
def demo(live_service) -> Plan:
    return demo_plan_copy()


async def test_refusals_unknown_or_closed_account_and_a_malformed_balance(demo):
    closed = await Account.objects.aget(plan=demo, closed=True)
    checking = await Account.objects.aget(plan=demo, name="Checking")
    async with connected(MODERN, says_yes()) as client:
        unknown = await client.call_tool(
            TOOL, {"plan_id": demo.id, "account_id": "a-unknown", "bank_balance": "1"}
        )
        shut = await client.call_tool(
            TOOL, {"plan_id": demo.id, "account_id": closed.id, "bank_balance": "1"}
        )
        malformed = await client.call_tool(
            TOOL, {"plan_id": demo.id, "account_id": checking.id, "bank_balance": "1,234.56"}
        )
    assert (unknown.is_error, shut.is_error, malformed.is_error) == (True, True, True)
    assert unknown.content[0].text == (
        "No account 'a-unknown' in this plan; list_accounts gives the valid ids."
    )
    assert shut.content[0].text == (
        f"Account '{closed.id}' is closed: there is nothing to reconcile on it; give an open account from "
        "list_accounts."
    )
    assert malformed.content[0].text == (
        "bank_balance '1,234.56' has a thousands separator or a decimal comma (only '.' before the "
        'decimals): give currency units as a decimal like "-42.50".'
    )


async def test_the_demo_checking_differs_from_its_bank_by_the_cashed_cheque(demo):
    """The demo plan's offer (README): its note gives the bank's balance; the gap is the uncleared cheque."""
    checking = await Account.objects.aget(plan=demo, name="Checking")
    bank = checking.note.rsplit(" ", 1)[-1].rstrip(".").replace(",", ".").replace("\u202f", "")
    person = says_yes()
    async with connected(MODERN, person) as client:
        first = content(
            await client.call_tool(
                TOOL, {"plan_id": demo.id, "account_id": checking.id, "bank_balance": bank}
            )
        )
        adjusted = content(
            await client.call_tool(
                TOOL, {"plan_id": demo.id, "account_id": checking.id, "bank_balance": bank, "adjust": True}
            )
        )

    assert first["status"] == "difference_found"
    assert first["analysis"]["difference"] == "-35.00"
    [cheque] = first["analysis"]["explained_by"]
    assert (
        next(u for u in first["analysis"]["uncleared"] if u["transaction_id"] == cheque)["payee"]
        == "Music school"
    )
    assert person.messages[0].splitlines()[1] == (
        f"An adjustment of 35,00 dated {today().isoformat()} is entered first, so the cleared balance equals "
        "the bank's."
    )
    assert adjusted["status"] == "applied"


async def test_the_adjustment_lost_before_any_marking_says_what_may_be_in_ynab(adjusting, home):
    start = await standing(adjusting)
    async with connected(MODERN) as client:
        first = content(await call(client, adjusting))
        await sync_to_async(faults.inject)("drop_after_write", method="POST", path=adjusting.write_path)
        mark = await sync_to_async(faults.last_request_id)()
        result = await call(client, adjusting, confirmation=first["confirmation"])
    op = await latest_operation(adjusting)
    statuses, new = await adjusting.state()

    text = error_text(result, adjusting)
    assert text == (
        "No answer came back to entering the adjustment of +5.00: it may or may not be in YNAB "
        "(find_transactions on the account shows a 'Reconciliation Balance Adjustment' dated "
        f"{today().isoformat()} if it is), nothing was marked reconciled, and nothing is sent again. "
        f"The log keeps this as operation {op.pk} (unknown)."
    )
    assert (op.status, op.error, op.undo_data["reconciled_ids"]) == ("unknown", text, [])
    assert statuses == start.state[0]  # nothing marked
    assert [row[2] for row in new] == [ADJUSTMENT_PAYEE]  # the sandbox did enter it
    sent = [r.split()[0] for r in await requests_since(mark) if not r.startswith("GET")]
    assert sent == ["POST"]  # the adjustment once, never resent, and no marking
