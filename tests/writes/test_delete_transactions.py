"""delete_transactions through the SDK's real client: its own confirmation paths and faults, the preview,
each refusal, the deletes in order, a failure midway, a lost answer midway and a process killed between
two deletes."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from asgiref.sync import sync_to_async

from avenir_mcp.oplog import settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.ledger import utc_today
from tests.helpers.processes import next_line, service_env
from tests.helpers.shared_plans import read_only
from tests.helpers.write_cases.delete_transactions import (
    TOOL,
    deleting,
    deleting_the_transfer,
    live,
    other_side,
)
from tests.writes.checks import make_available, requests_since, sandbox_http, says_yes, standing
from tests.writes.harness import (
    ARGUMENTS_ONLY_PATHS,
    FAULT_PATHS,
    MODERN,
    Env,
    WriteCase,
    call,
    case_shared_by_module,
    connected,
    content,
    documented_fingerprint,
    error_text,
    expect_nothing_written,
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
)
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio

# The subject is the ids alone: nothing YNAB holds makes the same ids a different change (a
# transaction changed or deleted meanwhile is refused, or deleted as it now is).
PATHS = paths_for(TOOL, ARGUMENTS_ONLY_PATHS)
FAULTS = paths_for(TOOL, FAULT_PATHS)
DAY = (utc_today() - timedelta(days=3)).isoformat()


def case_on(home: Household) -> WriteCase:
    case = deleting_the_transfer(home)

    def check_log(op: Operation) -> None:
        assert op.subject == {"transaction_ids": [home.transfer]}
        assert op.fingerprint == documented_fingerprint(home.id, {"transaction_ids": [home.transfer]})
        [logged] = op.undo_data["transactions"]
        assert (logged["id"], logged["account_id"], logged["transfer_account_id"], logged["amount"]) == (
            home.transfer,
            home.home.checking,
            home.home.savings,
            -100_000,
        )

    case.check_log = check_log
    return case


@pytest.fixture
def case(home: Household) -> WriteCase:
    return case_on(home)


@pytest.fixture(scope="module")
def shared_case(live_service) -> Iterator[WriteCase]:
    """`case` made once, on a plan of its own, for the paths that write nothing."""
    with case_shared_by_module(lambda: case_on(household())) as case:
        yield case


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write(PATHS))
async def test_each_path_writes_exactly_when_the_person_agreed(path, case, settings, monkeypatch):
    await PATHS[path](case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", paths_that_write_nothing(PATHS))
async def test_each_path_without_a_yes_writes_nothing(path, shared_case, settings, monkeypatch):
    await PATHS[path](shared_case, Env(settings, monkeypatch))


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_preview_names_each_transaction_and_they_are_deleted_in_order(home):
    savings_side = other_side(home.id, home.transfer)
    given = [home.market, home.salary, home.cafe, home.split, savings_side]
    case = deleting(home, given, watched=(home.transfer,))
    await make_available(home.id, DAY, home.home.dining, 50_000)
    await make_available(home.id, DAY, home.home.groceries, 40_000)
    start = await standing(case)

    async with connected(MODERN) as client:
        first = content(await call(client, case))
        answer = content(await call(client, case, confirmation=first["confirmation"]))

    assert first["preview"] == (
        "Delete 5 transaction(s)?\n"
        f"- {DAY}; CB MARKET FRESH 0509; 86.43; (uncategorised); on Checking\n"
        f"- {DAY}; ACME PAYROLL; +1234.56; (uncategorised); on Checking\n"
        f"- {DAY}; CORNER CAFE; 12.34; Dining Out; on Checking\n"
        f"- {DAY}; BIG STORE; 30.00; Split; on Checking\n"
        f"- {DAY}; Transfer : Checking; +100.00; on Savings; transfer from Checking (both sides)\n"
        "Available, before → after:\n"
        f"- Dining Out for {DAY[:7]}-01: 50.00 → 72.34\n"
        f"- Groceries for {DAY[:7]}-01: 40.00 → 60.00\n"
        "Undo enters them again as new transactions (new ids); a bank import may then match them again."
    )
    assert answer["message"] == (
        f"Deleted 5 transaction(s). Done as operation {answer['operation_id']}; undo_operation with that id "
        "reverses it."
    )
    assert [(d["transaction_id"], d["amount"], d["account"], d["category"]) for d in answer["deleted"]] == [
        (home.market, "-86.43", "Checking", None),
        (home.salary, "1234.56", "Checking", None),
        (home.cafe, "-12.34", "Checking", "Dining Out"),
        (home.split, "-30.00", "Checking", "Split"),
        (savings_side, "100.00", "Savings", None),
    ]
    assert await live(home.id, *given, home.transfer) == ()  # the transfer's checking side went with it
    sent = [line for line in await requests_since(start.mark) if line.startswith("DELETE")]
    assert sent == [f"DELETE /sandbox/v1/plans/{home.id}/transactions/{t}" for t in given]
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert op.subject == {"transaction_ids": sorted(given)}
    assert (op.undo_data["deleted_ids"], op.undo_data["untouched_ids"]) == (given, [])
    logged = {item["id"]: item for item in op.undo_data["transactions"]}
    assert sorted(logged[home.split]["lines"], key=lambda line: line["amount"]) == [
        {
            "amount": -20_000,
            "payee_id": None,
            "payee_name": None,
            "category_id": home.home.groceries,
            "memo": None,
            "transfer_account_id": None,
        },
        {
            "amount": -10_000,
            "payee_id": None,
            "payee_name": None,
            "category_id": home.home.dining,
            "memo": "snacks",
            "transfer_account_id": None,
        },
    ]
    assert logged[savings_side]["transfer_account_id"] == home.home.checking
    assert logged[home.cafe]["memo"] == "lunch"


# --- refusals ---------------------------------------------------------------------------------------


@dataclass
class Arranged(Household):
    """The household with a reconciled transaction, a transfer whose other side is reconciled and a
    split one of whose lines is a transfer (`leg`: its other side)."""

    reconciled_transfer: str = ""
    leg: str = ""
    leg_split: str = ""


def arranged() -> Arranged:
    home = household("Deletions refused")
    h = home.home
    with sandbox_http() as http:
        savings_payee = http.get(f"/plans/{home.id}/accounts/{h.savings}").json()["data"]["account"]
        transfers = [
            {
                "account_id": h.checking,
                "date": DAY,
                "amount": -7_000,
                "payee_id": savings_payee["transfer_payee_id"],
            },
            {
                "account_id": h.checking,
                "date": DAY,
                "amount": -9_000,
                "payee_name": "SHOP",
                "subtransactions": [
                    {"amount": -4_000, "category_id": h.groceries},
                    {"amount": -5_000, "payee_id": savings_payee["transfer_payee_id"]},
                ],
            },
        ]
        made = http.post(f"/plans/{home.id}/transactions", json={"transactions": transfers}).json()["data"]
        transfer, split = (
            http.get(f"/plans/{home.id}/transactions/{t}").json()["data"]["transaction"]
            for t in made["transaction_ids"]
        )
        reconciled = [
            {"id": home.cafe, "cleared": "reconciled"},
            {"id": transfer["transfer_transaction_id"], "cleared": "reconciled"},
        ]
        assert http.patch(f"/plans/{home.id}/transactions", json={"transactions": reconciled}).is_success
    return Arranged(
        **vars(home),
        reconciled_transfer=transfer["id"],
        leg=split["subtransactions"][1]["transfer_transaction_id"],
        leg_split=split["id"],
    )


@pytest.fixture(scope="module")
def refused_home(live_service) -> Iterator[Arranged]:
    home = arranged()
    with read_only(home.home.plan):
        yield home


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["t-unknown"], "No transaction 't-unknown' in this plan; find_transactions gives the valid ids."),
        (
            ["cafe"],
            "Transaction '{cafe}' is reconciled: deleting it would move a balance the person matched to the "
            "bank. They can delete it in YNAB, which asks first.",
        ),
        (
            ["market", "reconciled_transfer"],
            "Transaction '{reconciled_transfer}' is a transfer whose other side ('{other}') is reconciled, "
            "and YNAB deletes both: it would move a balance the person matched to the bank. They can delete "
            "it in YNAB, which asks first.",
        ),
        (
            ["transfer", "transfer_other"],
            "Transactions '{first}' and '{second}' are the two sides of one transfer; give one of them: YNAB "
            "deletes its pair with it.",
        ),
        (
            ["leg"],
            "Transaction '{leg}' is the other side of a transfer made by a line of split transaction "
            "'{leg_split}'; YNAB deletes it only with that split: give the split's id instead.",
        ),
    ],
    ids=["unknown", "reconciled", "other side reconciled", "both sides", "a split line's transfer"],
)
async def test_what_the_plan_refuses_is_refused_before_asking(refused_home, given, expected):
    home = refused_home
    ids = {
        "transfer_other": other_side(home.id, home.transfer),
        "other": other_side(home.id, home.reconciled_transfer),
    }
    transaction_ids = [ids.get(name) or getattr(home, name, name) for name in given]
    case = deleting(home, transaction_ids)
    start = await standing(case)
    person = says_yes()

    async with connected(MODERN, person) as client:
        refused = await call(client, case)

    pair = sorted([home.transfer, ids["transfer_other"]])
    said = expected.format(
        cafe=home.cafe,
        reconciled_transfer=home.reconciled_transfer,
        other=ids["other"],
        first=pair[0],
        second=pair[1],
        leg=home.leg,
        leg_split=home.leg_split,
    )
    assert error_text(refused, case) == said
    assert person.questions == []
    await expect_nothing_written(case, start)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ([], "at least 1 item"),
        (["market", "market"], "Transaction '{market}' is listed twice; give it once."),
        (
            ["bad id!"],
            "'bad id!' is not a valid transaction id (it contains U+0020): use an id from find_transactions.",
        ),
    ],
    ids=["empty", "twice", "not an id"],
)
async def test_what_the_arguments_alone_show_is_refused_before_any_request(refused_home, given, expected):
    transaction_ids = [getattr(refused_home, name, name) for name in given]
    case = deleting(refused_home, transaction_ids)
    start = await standing(case)

    async with connected(MODERN) as client:
        refused = await call(client, case)

    assert refused.is_error
    assert expected.format(market=refused_home.market) in refused.content[0].text
    assert await requests_since(start.mark) == []


# --- a failure midway -----------------------------------------------------------------------------


async def _fault_on(kind: str, home: Household, transaction_id: str, **options) -> None:
    path = f"/plans/{home.id}/transactions/{transaction_id}$"
    await sync_to_async(faults.inject)(kind, method="DELETE", path=path, **options)


async def _made(case: WriteCase):
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        return await call(client, case, confirmation=first["confirmation"])


async def test_a_delete_refused_midway_stops_there_and_the_row_is_applied_for_what_was_deleted(home):
    given = [home.market, home.cafe, home.salary]
    case = deleting(home, given)
    start = await standing(case)
    await _fault_on("status", home, home.cafe, status=400)

    result = await _made(case)

    op = await Operation.objects.filter(plan_id=home.id, tool=TOOL).aget()
    said = error_text(result, case)
    assert said.startswith(
        f"Deleted 1 of the 3 transaction(s) ({home.market}), then deleting {home.cafe} failed: "
    )
    assert said.endswith(
        f"The 2 not deleted ({home.cafe}, {home.salary}) are untouched, and undo_operation enters the "
        f"deleted ones again. The log keeps this as operation {op.pk} (applied)."
    )
    assert (op.status, op.error, op.undoable) == ("applied", said, True)
    assert (op.undo_data["deleted_ids"], op.undo_data["untouched_ids"]) == (
        [home.market],
        [home.cafe, home.salary],
    )
    assert await live(home.id, *given) == (home.cafe, home.salary)
    sent = [line for line in await requests_since(start.mark) if line.startswith("DELETE")]
    assert sent == [
        f"DELETE /sandbox/v1/plans/{home.id}/transactions/{t}" for t in given[:2]
    ]  # never the third

    person = says_yes()
    async with connected(MODERN, person) as client:
        undone = content(
            await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": op.pk})
        )

    assert person.messages == [
        "Undo: enter 1 deleted transaction(s) again?\n"
        f"- {DAY}; CB MARKET FRESH 0509; 86.43; (uncategorised); on Checking\n"
        "Already as before, nothing to do: 2 item(s)."
    ]
    assert (undone["status"], undone["restored"], undone["already_as_before"]) == ("applied", 1, 2)


async def test_a_first_delete_refused_deletes_nothing_and_fails_the_row(home):
    case = deleting(home, [home.market, home.cafe])
    await _fault_on("status", home, home.market, status=400)

    result = await _made(case)

    op = await Operation.objects.filter(plan_id=home.id, tool=TOOL).aget()
    assert error_text(result, case).endswith(f"Nothing was changed (operation {op.pk} is logged as failed).")
    assert op.status == "failed"
    assert await live(home.id, home.market, home.cafe) == (home.market, home.cafe)


async def test_an_answer_lost_midway_is_never_resent_and_settling_finds_what_landed(home):
    given = [home.market, home.cafe, home.salary]
    case = deleting(home, given)
    start = await standing(case)
    await _fault_on("drop_after_write", home, home.cafe)

    result = await _made(case)

    op = await Operation.objects.filter(plan_id=home.id, tool=TOOL).aget()
    assert error_text(result, case) == (
        f"Deleted 1 of the 3 transaction(s) ({home.market}), then no answer came back to deleting "
        f"{home.cafe}: it may or may not be deleted, and it is not sent again; the other 1 ({home.salary}) "
        "are untouched. Check with find_transactions which of them are still there before trying again. "
        "The log keeps this "
        f"as operation {op.pk} (unknown)."
    )
    assert (op.status, op.undo_data["untouched_ids"]) == ("unknown", [home.salary])
    assert "deleted_ids" not in op.undo_data
    sent = [line for line in await requests_since(start.mark) if line.startswith("DELETE")]
    assert len(sent) == 2

    await settling.settle_plan(home.id)

    await op.arefresh_from_db()
    assert op.status == "applied"
    assert op.settled_at is not None
    assert op.error == (
        "Settled from YNAB's state: 2 of 3 item(s) landed; 1 did not (as before). undo_operation restores "
        "only what landed (its preview names them)."
    )
    assert await live(home.id, *given) == (home.salary,)


@pytest.mark.subprocesses
async def test_a_process_killed_between_two_deletes_is_settled_as_applied_for_the_first(
    home, sandbox_url, settings, tmp_path
):
    given = [home.market, home.cafe]
    case = deleting(home, given)
    arguments = {"plan_id": home.id, "transaction_ids": given}
    with (tmp_path / "stderr").open("wb") as stderr:
        writer = await anyio.open_process(
            [sys.executable, "-m", "tests.writes.dying_writer", TOOL, json.dumps(arguments), "2"],
            cwd=str(settings.BASE_DIR),
            env=service_env(
                AVENIR_MCP_YNAB_URL=sandbox_url,
                AVENIR_MCP_WRITE="1",
                YNAB_API_KEY="",
                SANDBOX_TOKEN=settings.SANDBOX_TOKEN,
            ),
            stderr=stderr,
        )
    try:
        said = await next_line(BufferedByteReceiveStream(writer.stdout), stderr=tmp_path / "stderr")
        assert said == b"stopped", said
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        if writer.returncode is None:
            writer.kill()
        await writer.wait()
        await writer.aclose()
    op = await Operation.objects.filter(plan_id=home.id, tool=TOOL).aget()
    assert op.status == "pending"
    assert await case.state() == (home.cafe,)  # the first delete landed, the second never left

    settings.AVENIR_MCP_SETTLE_SECONDS = 0  # a new service starting on the same database: its start-up round
    await settling.keep_settling()

    await op.arefresh_from_db()
    assert (op.status, op.settled_at is not None) == ("applied", True)
    assert op.error.startswith("Settled from YNAB's state: 1 of 2 item(s) landed; 1 did not (as before).")
    async with connected(MODERN, says_yes()) as client:
        undone = content(
            await client.call_tool("undo_operation", {"plan_id": home.id, "operation_id": op.pk})
        )
    assert (undone["status"], undone["restored"], undone["already_as_before"]) == ("applied", 1, 1)


async def test_the_last_delete_lost_before_ynab_ran_it_is_settled_as_not_landed(home):
    case = deleting(home, [home.market, home.cafe])
    await _fault_on("drop_before_write", home, home.cafe)

    result = await _made(case)

    op = await Operation.objects.filter(plan_id=home.id, tool=TOOL).aget()
    assert error_text(result, case).startswith(
        f"Deleted 1 of the 2 transaction(s) ({home.market}), then no answer came back to deleting "
        f"{home.cafe}: it may or may not be deleted, and it is not sent again. Check with"
    )
    await settling.settle_plan(home.id)
    await op.arefresh_from_db()
    assert (op.status, await live(home.id, home.market, home.cafe)) == ("applied", (home.cafe,))
    assert op.error.startswith("Settled from YNAB's state: 1 of 2 item(s) landed; 1 did not (as before).")
