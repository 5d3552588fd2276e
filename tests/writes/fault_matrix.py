"""The fault matrix's table: one `Scenario` per write tool, and the faults it is run under.

Adding a write tool to the matrix is one entry in `SCENARIOS`: how to make its `WriteCase` on
a fresh plan (the same case its own tests use), and, for a tool sending several write
requests, each request (its method and path, and how many times it may reach YNAB in all,
its own write plus a set-back). `test_fault_matrix.py` checks that every write tool of the
catalog has an entry, then runs each scenario's cells (`cells_of`: every request × every fault
for the representative tools of tests/writes/harness.py, the tool's own faults for the others),
and for tools with several requests also a stop between them (the process killed, a new one
settling at start-up).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async

from avenir_mcp.oplog.undo_write import UNKNOWN_CHECK
from tests.helpers.write_cases.apply_categories import recategorising
from tests.helpers.write_cases.approve import approving
from tests.helpers.write_cases.category_groups import group_case, group_rename_case
from tests.helpers.write_cases.create_account import account_case
from tests.helpers.write_cases.create_category import create_case
from tests.helpers.write_cases.create_transactions import creating, days_ago, ids_on
from tests.helpers.write_cases.delete_transactions import deleting_the_transfer
from tests.helpers.write_cases.flag_transactions import flagged_yellow, flagging
from tests.helpers.write_cases.import_transactions import importing, linked_account
from tests.helpers.write_cases.move_money import move_case
from tests.helpers.write_cases.reconcile_account import reconciling
from tests.helpers.write_cases.rename_payee import OLD, payee_called, rename_case
from tests.helpers.write_cases.schedules import creating as creating_schedule
from tests.helpers.write_cases.schedules import deleting, scheduled_in_ynab, updating
from tests.helpers.write_cases.set_category_budget import budget_case
from tests.helpers.write_cases.set_category_target import target_case
from tests.helpers.write_cases.split_transaction import held, splitting
from tests.helpers.write_cases.transfer_money import originals_of, transferring
from tests.helpers.write_cases.update_category import update_case
from tests.helpers.write_cases.update_transactions import update_case as transactions_update_case
from tests.writes.assigned_plans import DINING_ASSIGNED, assigned, budget_home
from tests.writes.category_plans import group_of
from tests.writes.checks import MODERN, WriteCase, connected, content, write_made
from tests.writes.harness import REPRESENTATIVE_TOOLS
from tests.writes.households import household


@dataclass(frozen=True)
class WriteRequest:
    """One write request of a tool: the fault's target. `most`: how many times it may reach YNAB
    in all (1: never resent; 2 for a category move_money may also set back)."""

    name: str
    method: str
    path: str
    most: int = 1


def _one_write(case: WriteCase) -> tuple[WriteRequest, ...]:
    return (WriteRequest("the write", case.write_method, case.write_path),)


@dataclass(frozen=True)
class Scenario:
    """A write tool in the matrix. `case()` makes its write on a fresh plan; `requests(case)` are
    its write requests in the order sent, named `names` (default: the case's one write)."""

    case: Callable[[], Awaitable[WriteCase]]
    requests: Callable[[WriteCase], tuple[WriteRequest, ...]] = _one_write
    names: tuple[str, ...] = ("the write",)


async def _fresh(make: Callable[[], Any]) -> Any:
    return await sync_to_async(make)()


async def _recategorising() -> WriteCase:
    return recategorising(await _fresh(household))


async def _approving() -> WriteCase:
    home = await _fresh(household)
    return approving(home, home.market, home.salary, home.split)


async def _importing() -> WriteCase:
    home = await _fresh(household)
    return importing(home, await sync_to_async(linked_account)(home))


async def _budgeting() -> WriteCase:
    return budget_case(await _fresh(budget_home))


async def _moving() -> WriteCase:
    return move_case(await _fresh(budget_home))


def _move_requests(case: WriteCase) -> tuple[WriteRequest, ...]:
    source, destination = case.arguments["from_category_id"], case.arguments["to_category_id"]
    path = rf"/plans/{case.plan_id}/months/[^/]+/categories/"
    return (
        WriteRequest("the source", "PATCH", f"{path}{source}$", most=2),
        WriteRequest("the destination", "PATCH", f"{path}{destination}$", most=2),
    )


async def _undoing() -> WriteCase:
    """Undo of a set_category_budget applied first (Dining Out 120.00 → 150.00, back to 120.00)."""
    budget = await _fresh(budget_home)
    async with connected(MODERN) as client:
        applied = content(await write_made(budget_case(budget), client))
    dining = budget.home.dining
    return WriteCase(
        tool="undo_operation",
        plan_id=budget.id,
        arguments={"plan_id": budget.id, "operation_id": applied["operation_id"]},
        state=lambda: assigned(budget, dining),
        expected_after=DINING_ASSIGNED,
        write_method="PATCH",
        write_path=rf"/plans/{budget.id}/months/[^/]+/categories/{dining}$",
        check=UNKNOWN_CHECK,
        undoable=False,
        private_values=budget.private,
    )


async def _flagging() -> WriteCase:
    """Two flags set and one removed (test_flag_transactions' case)."""
    home = await _fresh(household)
    await sync_to_async(flagged_yellow)(home, home.cafe)
    return flagging(home, {home.market: "red", home.salary: "blue", home.cafe: None})


async def _creating() -> WriteCase:
    """Two transactions entered on checking, approved (test_create_transactions' case)."""
    home = await _fresh(household)
    originals = await ids_on(home.id, home.home.checking)
    lines = [
        {
            "date": days_ago(1),
            "amount": "-4.50",
            "payee_name": "Parking Meter",
            "memo": "street",
            "category_id": home.home.dining,
        },
        {"date": days_ago(2), "amount": "20.00", "payee_name": "Cash from Mum", "category_id": None},
    ]
    return creating(home, lines, originals, approved=True)


async def _deleting() -> WriteCase:
    """The household's transfer deleted, both sides (test_delete_transactions' case). One transaction:
    a delete landed cannot be set back (a deleted id never returns), so what the matrix checks (all or
    nothing) is one delete's; several, stopped midway, are test_delete_transactions' own tests."""
    home = await _fresh(household)
    return await _fresh(lambda: deleting_the_transfer(home))


async def _splitting() -> WriteCase:
    """The market purchase (86.43) split into groceries and dining (test_split_transaction's case)."""
    home = await _fresh(household)
    h = home.home
    lines = [
        {"amount": "-50.00", "category_id": h.groceries, "memo": "food"},
        {"amount": "-36.43", "category_id": h.dining},
    ]
    case = splitting(home, home.market, lines)
    _category, *kept, _lines = await held(home, home.market)
    case.expected_after = ("Split", *kept, [(-50_000, h.groceries, "food"), (-36_430, h.dining, None)])
    return case


async def _reconciling() -> WriteCase:
    """Checking reconciled against a bank 5.00 above its cleared balance: an adjustment entered, then
    the cleared transactions and it marked reconciled."""
    return await reconciling(await _fresh(household), gap=5_000)


def _reconcile_requests(case: WriteCase) -> tuple[WriteRequest, ...]:
    path = rf"/plans/{case.plan_id}/transactions$"
    return (WriteRequest("the adjustment", "POST", path), WriteRequest("the marking", "PATCH", path))


async def _targeting() -> WriteCase:
    return target_case(await _fresh(budget_home))


async def _updating() -> WriteCase:
    budget = await _fresh(budget_home)
    return update_case(budget, await group_of(budget.home.rent))


async def _creating_category() -> WriteCase:
    return create_case(await _fresh(budget_home))


async def _opening_account() -> WriteCase:
    return account_case(await _fresh(budget_home))


async def _creating_group() -> WriteCase:
    return group_case(await _fresh(budget_home))


async def _renaming_group() -> WriteCase:
    return group_rename_case(await _fresh(budget_home))


async def _renaming() -> WriteCase:
    home = await _fresh(household)
    return rename_case(home, await payee_called(home, OLD))


async def _transferring() -> WriteCase:
    """150.00 from checking to the card (test_transfer_money's case)."""
    home = await _fresh(household)
    return transferring(home, await originals_of(home.id, home.home.checking, home.home.card))


async def _scheduling() -> WriteCase:
    return creating_schedule(await _fresh(household))


async def _rescheduling() -> WriteCase:
    home = await _fresh(household)
    return updating(home, await scheduled_in_ynab(home))


async def _unscheduling() -> WriteCase:
    home = await _fresh(household)
    return deleting(home, await scheduled_in_ynab(home))


async def _correcting() -> WriteCase:
    """Three transactions corrected: amount, memo, cleared; date and a new payee; a transfer's amount
    (test_update_transactions' case)."""
    return transactions_update_case(await _fresh(household))


SCENARIOS: dict[str, Scenario] = {
    "apply_categories": Scenario(_recategorising),
    "approve_transactions": Scenario(_approving),
    "import_transactions": Scenario(_importing),
    "set_category_budget": Scenario(_budgeting),
    "move_money": Scenario(_moving, requests=_move_requests, names=("the source", "the destination")),
    "undo_operation": Scenario(_undoing),
    "flag_transactions": Scenario(_flagging),
    "create_transactions": Scenario(_creating),
    "delete_transactions": Scenario(_deleting),
    "split_transaction": Scenario(_splitting),
    "reconcile_account": Scenario(
        _reconciling, requests=_reconcile_requests, names=("the adjustment", "the marking")
    ),
    "set_category_target": Scenario(_targeting),
    "update_category": Scenario(_updating),
    "create_category": Scenario(_creating_category),
    "create_account": Scenario(_opening_account),
    "create_category_group": Scenario(_creating_group),
    "update_category_group": Scenario(_renaming_group),
    "rename_payee": Scenario(_renaming),
    "transfer_money": Scenario(_transferring),
    "create_scheduled_transaction": Scenario(_scheduling),
    "update_scheduled_transaction": Scenario(_rescheduling),
    "delete_scheduled_transaction": Scenario(_unscheduling),
    "update_transactions": Scenario(_correcting),
}

READ_TIMEOUT = 0.3
"""The YNAB client's read timeout for the request a `timeout` fault holds (0.9 s longer)."""

FAULTS: dict[str, dict[str, Any]] = {
    "500": {"kind": "status", "status": 500},
    "503": {"kind": "status", "status": 503},
    "429": {"kind": "status", "status": 429, "delay_ms": 1000},  # Retry-After: 1
    "timeout": {"kind": "delay", "delay_ms": 1200},  # runs once the client gave up: lands late
    "dropped before the write": {"kind": "drop_before_write"},
    "dropped after the write": {"kind": "drop_after_write"},
}


TOOLS_OWN_FAULTS = ("timeout", "dropped before the write", "500")
"""The faults that depend on the tool itself, run for every write tool (`cells_of`).

A request lost, on each request, landed or not: a timeout whose request still lands, and the
connection dropped before YNAB ran it; only the tool's own reading back (`settle`, run by
`oplog.settling`) can then find the row applied or failed, for whichever request it was.
YNAB refusing (500) once, on the last request, after any earlier ones answered: the tool sets
back what landed, or there is nothing to set back.

The rest are the flow's and the client's, the same whichever tool sent the request: 503 and 429
are retried or paced by the YNAB client (`ynab_client`), the connection dropped after YNAB ran the
request is the same lost answer as a timeout's (`oplog.changes` logs `unknown`, settling reads back
what landed), and a refusal on an earlier request leaves nothing sent after it. The representative
tools run them all, on every request.
"""


def cells_of(tool: str, scenario: Scenario) -> list[tuple[str, str]]:
    """The (request, fault) cells `tool` is run under: every request × every fault (`FAULTS`) for
    a representative tool (tests/writes/harness.py); for every other, each request lost landed and
    not landed, and a 500 on the last request (`TOOLS_OWN_FAULTS`)."""
    if tool in REPRESENTATIVE_TOOLS:
        return [(name, fault) for name in scenario.names for fault in FAULTS]
    *lost, refused = TOOLS_OWN_FAULTS
    return [*((name, fault) for name in scenario.names for fault in lost), (scenario.names[-1], refused)]
