"""flag_transactions through the SDK's real client: every confirmation path, faults, refusals, preview."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta

import pytest

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox.ledger import utc_today
from avenir_mcp.tools.writes.flag_transactions import FlagSet, FlagSubject, FlagUndo, LoggedFlag
from tests.helpers.write_cases.flag_transactions import TOOL, flagged_yellow, flagging, flags, set_flag
from tests.writes.checks import requests_since, sandbox_http, says_yes, standing, ynab
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
    paths_for,
    paths_that_write,
    paths_that_write_nothing,
)
from tests.writes.households import Household, household

pytestmark = pytest.mark.anyio

PATHS = paths_for("flag_transactions", CONFIRMED_PATHS)
FAULTS = paths_for("flag_transactions", FAULT_PATHS)


def case_on(home: Household) -> WriteCase:
    flagged_yellow(home, home.cafe)
    wanted = {home.market: "red", home.salary: "blue", home.cafe: None}
    before = {home.market: None, home.salary: None, home.cafe: "yellow"}

    async def restore() -> None:
        for transaction_id, colour in before.items():
            await set_flag(home, transaction_id, colour)

    def check_log(op: Operation) -> None:
        # Exactly the fields of docs/confirmation.md#subjects-and-the-fingerprint: the flags (transaction,
        # colour after), in any order.
        subject = [{"transaction_id": t, "color": c} for t, c in wanted.items()]
        assert sorted(op.subject["flags"], key=_canonical) == sorted(subject, key=_canonical)
        assert op.fingerprint == documented_fingerprint(home.id, {"flags": subject})
        assert op.fingerprint == documented_fingerprint(home.id, {"flags": subject[::-1]})
        logged = [{"id": t, "before": before[t], "after": c} for t, c in wanted.items()]
        assert sorted(op.undo_data["flags"], key=_canonical) == sorted(logged, key=_canonical)

    case = flagging(home, wanted)
    # The cafe's flag removed meanwhile: that flag is no longer a change, so the flags are not the ones
    # the person agreed to (the subject's own list changed).
    case.change_plan = lambda: set_flag(home, home.cafe, None)
    case.restore = restore
    case.private_values = home.private
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


@pytest.mark.parametrize("way", ANSWER_WAYS)
async def test_the_same_flags_are_set_when_a_colour_before_moved_before_the_answer(case, home, way):
    """The person agreed to market → red: a flag put on it meanwhile (green) does not stop the yes;
    the log keeps the colour it really replaced, so undo puts that one back."""
    await before(case)

    result = await answered_after(way, case, lambda: set_flag(home, home.market, "green"))

    answer = content(result)
    assert answer["status"] == "applied", answer
    assert await flags(home, home.market, home.salary, home.cafe) == case.expected_after
    op = await Operation.objects.aget(pk=answer["operation_id"])
    subject = [{"transaction_id": t, "color": c} for t, c in case.expected_after.items()]
    assert op.fingerprint == documented_fingerprint(home.id, {"flags": subject})
    logged = {item["id"]: (item["before"], item["after"]) for item in op.undo_data["flags"]}
    assert logged == {home.market: ("green", "red"), home.salary: (None, "blue"), home.cafe: ("yellow", None)}


@pytest.mark.matrix
@pytest.mark.parametrize("path", FAULTS)
async def test_each_fault_leaves_an_honest_log_and_nothing_resent(path, case, settings, monkeypatch):
    await FAULTS[path](case, Env(settings, monkeypatch))


async def test_the_person_sees_each_flag_before_and_after_as_a_statement_reads_it(case, home):
    day = (utc_today() - timedelta(days=3)).isoformat()
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, case))

    assert person.messages == [
        "Change the flag of 3 transaction(s)?\n"
        f"- {day}; CB MARKET FRESH 0509; 86.43: none → red\n"
        f"- {day}; ACME PAYROLL; +1234.56: none → blue\n"
        f"- {day}; CORNER CAFE; 12.34: yellow → none"
    ]
    assert answer["changes"] == [
        {
            "transaction_id": home.market,
            "date": day,
            "payee": "CB MARKET FRESH 0509",
            "amount": "-86.43",
            "from_color": None,
            "to_color": "red",
        },
        {
            "transaction_id": home.salary,
            "date": day,
            "payee": "ACME PAYROLL",
            "amount": "1234.56",
            "from_color": None,
            "to_color": "blue",
        },
        {
            "transaction_id": home.cafe,
            "date": day,
            "payee": "CORNER CAFE",
            "amount": "-12.34",
            "from_color": "yellow",
            "to_color": None,
        },
    ]
    assert answer["unchanged_count"] == 0
    assert answer["message"] == (
        f"Changed the flag of 3 transaction(s). Done as operation {answer['operation_id']}; "
        "undo_operation with that id reverses it."
    )


async def test_a_flag_already_of_that_colour_is_skipped_and_all_skipped_asks_nothing(home):
    flagged_yellow(home, home.cafe)
    some = flagging(home, {home.cafe: "yellow", home.market: "green"})
    none_left = flagging(home, {home.cafe: "yellow", home.market: None})
    start = await standing(none_left)
    person = says_yes()

    async with connected(MODERN, person) as client:
        nothing = content(await call(client, none_left))
        assert person.questions == []
        await expect_nothing_written(none_left, start)
        applied = content(await call(client, some))

    assert (nothing["status"], nothing["unchanged_count"], nothing["changes"]) == ("nothing_to_do", 2, [])
    assert nothing["message"] == "Nothing to change: the 2 transaction(s) given already have these flags."
    assert (applied["status"], applied["unchanged_count"]) == ("applied", 1)
    assert person.messages[0].splitlines()[0] == "Change the flag of 1 transaction(s)?"
    assert await flags(home, home.cafe, home.market) == {home.cafe: "yellow", home.market: "green"}


async def test_an_empty_list_a_transaction_twice_or_an_unknown_colour_is_refused_before_any_request(
    shared_home,
):
    case = flagging(shared_home, {shared_home.market: "red"})
    start = await standing(case)
    twice = [
        {"transaction_id": shared_home.market, "color": "red"},
        {"transaction_id": shared_home.market, "color": "blue"},
    ]

    async with connected(MODERN) as client:
        empty = await client.call_tool(TOOL, {"plan_id": shared_home.id, "flags": []})
        listed_twice = await client.call_tool(TOOL, {"plan_id": shared_home.id, "flags": twice})
        colour = await client.call_tool(
            TOOL,
            {"plan_id": shared_home.id, "flags": [{"transaction_id": shared_home.market, "color": "pink"}]},
        )

    assert empty.is_error
    assert "at least 1 item" in empty.content[0].text
    assert (
        error_text(listed_twice, case) == f"Transaction '{shared_home.market}' is listed twice; give it once."
    )
    assert colour.is_error
    assert "'red', 'orange', 'yellow', 'green', 'blue' or 'purple'" in colour.content[0].text
    assert await requests_since(start.mark) == []


async def test_an_unknown_or_deleted_transaction_is_refused_pointing_to_find_transactions(home):
    await ynab("DELETE", f"/plans/{home.id}/transactions/{home.cafe}")
    for transaction_id in ("t-unknown", home.cafe):
        case = flagging(home, {home.market: "red", transaction_id: "blue"})
        case.state = lambda: flags(home, home.market)
        case.expected_after = {home.market: "red"}
        start = await standing(case)
        person = says_yes()
        async with connected(MODERN, person) as client:
            refused = await call(client, case)
        assert error_text(refused, case) == (
            f"No transaction '{transaction_id}' in this plan; find_transactions gives the valid ids."
        )
        assert person.questions == []
        await expect_nothing_written(case, start)


async def test_twenty_one_flags_show_twenty_lines_then_how_many_more(home):
    day = (utc_today() - timedelta(days=2)).isoformat()
    lines = [
        {"account_id": home.home.checking, "date": day, "amount": 1_000 * (n + 1), "payee_name": f"SHOP {n}"}
        for n in range(21)
    ]
    with sandbox_http() as http:
        created = http.post(f"/plans/{home.id}/transactions", json={"transactions": lines})
    ids = created.json()["data"]["transaction_ids"]
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(await call(client, flagging(home, dict.fromkeys(ids, "purple"))))

    shown = person.messages[0].splitlines()
    assert shown[0] == "Change the flag of 21 transaction(s)?"
    assert shown[1:21] == [f"- {day}; SHOP {n}; +{n + 1}.00: none → purple" for n in range(20)]
    assert shown[21:] == ["… and 1 more"]
    assert answer["status"] == "applied"


def _canonical(item: dict) -> str:
    return json.dumps(item, sort_keys=True)


async def test_the_demo_plan_has_flags_in_use_to_change(live_service):

    from asgiref.sync import sync_to_async

    from avenir_mcp.sandbox.models import Transaction
    from tests.helpers.plan_copies import demo_plan_copy

    demo = await sync_to_async(demo_plan_copy)()
    flagged = [t async for t in Transaction.objects.filter(plan=demo, deleted=False).exclude(flag_color=None)]
    colours = {t.flag_color for t in flagged}
    assert {"red", "yellow", "blue", "purple"} <= colours
    yellow = next(t for t in flagged if t.flag_color == "yellow")
    person = says_yes()

    async with connected(MODERN, person) as client:
        answer = content(
            await client.call_tool(
                TOOL, {"plan_id": demo.id, "flags": [{"transaction_id": yellow.id, "color": None}]}
            )
        )

    assert person.messages[0].splitlines()[1].endswith(": yellow → none")
    assert "; 89,90: " in person.messages[0]  # the plan's decimal comma
    assert answer["changes"][0]["amount"] == "-89.90"


def test_the_log_keeps_each_flag_before_and_after_as_rows_already_hold_them():
    old_row = {
        "flags": [
            {"id": "t-market", "before": None, "after": "red"},
            {"id": "t-dining", "before": "blue", "after": None},
        ]
    }

    logged = FlagUndo.from_stored(old_row)
    assert logged.flags[1] == LoggedFlag(id="t-dining", before="blue", after=None)
    assert logged.stored() == old_row
    subject = FlagSubject(flags=(FlagSet(transaction_id="t-dining", color=None),))
    assert (
        subject.fingerprinted()
        == subject.stored()
        == {"flags": [{"transaction_id": "t-dining", "color": None}]}
    )
