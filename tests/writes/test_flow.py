"""The write flow's log around `apply`: every way a write can end leaves its row completed, honestly.

The paths through YNAB (answers, lost answers, refusals, pacing) are covered per tool with the
sandbox's faults (`tests.writes.fault_paths`). These tests cover what only `apply` itself can
do: report a failure it understands (`WriteFailed`), fail with a bug, be cancelled, or get a
2xx answer it cannot read, which the sandbox never sends.

The write is a test tool declared as every write tool is (`write_tool` on a `WriteTool`), served
in memory by a server of its own, and called as an agent calls it: once for the code, then with
the code (`confirmed_write`); or once, acting at once (`unconfirmed_write`). Its plan is a fresh
household of the sandbox; its `apply` is each test's own (`APPLY`, by plan).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, ClassVar

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from avenir_mcp.confirmations import messages
from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.registry import spec_of
from avenir_mcp.mcp_surface.server import build_server
from avenir_mcp.oplog import kinds, log
from avenir_mcp.oplog.changes import Applied, Change, NoFields
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient, YnabError
from avenir_mcp.ynab_client.errors import MalformedAnswer, WriteFailed

pytestmark = pytest.mark.anyio

PLANNED = {"transactions": [{"id": "t1", "before": None, "after": "c1"}]}
CHECK = "Check with find_transactions."
QUESTION = "Recategorise 1 transaction(s)?"
WRITER = Principal.local("flow test")


class Recategorising(Subject):
    transaction_id: str
    category_id: str


class Recategorised(Record):
    id: str
    before: str | None
    after: str


class Planned(Record):
    """The undo data as planned before sending."""

    transactions: tuple[Recategorised, ...]


class Seen(Record):
    id: str
    before: str | None
    after: str
    seen: int


class Learnt(Record):
    """The undo data as the answer taught it."""

    transactions: tuple[Seen, ...]


class Landed(Record):
    """What a failure `apply` understands says landed."""

    landed: tuple[str, ...]
    source_to_set: int


LANDED = Landed(landed=("source",), source_to_set=80_000)

Apply = Callable[[YnabClient, PlanSnapshot, Change[Any, Any, Any]], Awaitable[Applied[Any]]]
APPLY: dict[str, Apply] = {}
"""Each test's `apply`, by its plan's id."""


class FlowTest(WriteTool[str, Recategorising, NoFields, Planned]):
    """Recategorises one transaction, as far as the log can tell: `apply` is the test's."""

    name = "flow_test"
    result: ClassVar[type[WriteResult]] = WriteResult

    def build(self, snapshot: PlanSnapshot, arguments: str) -> Change[Recategorising, NoFields, Planned]:
        return Change(
            subject=Recategorising(transaction_id=arguments, category_id="c1"),
            preview=Preview(QUESTION, ["2026-09-12, Market, 86.40: (uncategorised) → Groceries"]),
            fields=NoFields(),
            undo_data=Planned.from_stored(PLANNED),
            check=CHECK,
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, change: Change[Recategorising, NoFields, Planned]
    ) -> Applied[NoFields]:
        return await APPLY[snapshot.plan_id](client, snapshot, change)


class FlowTestAtOnce(FlowTest):
    """The same write, acting at once (as approve_transactions and import_transactions do)."""

    name = "flow_test_at_once"
    confirmed = False


TransactionArg = Annotated[str, Field(description="The transaction.", max_length=100)]


@write_tool(
    FlowTest(), title="Test the write flow", toolset="transactions", destructive=False, idempotent=False
)
def flow_test(transaction_id: TransactionArg) -> str:
    """Recategorise a transaction (the write flow's tests)."""
    return transaction_id


@write_tool(
    FlowTestAtOnce(),
    title="Test the write flow at once",
    toolset="transactions",
    destructive=False,
    idempotent=False,
)
def flow_test_at_once(transaction_id: TransactionArg) -> str:
    """Recategorise a transaction at once (the write flow's tests)."""
    return transaction_id


@functools.cache
def server(principal: Principal = WRITER) -> MCPServer:
    specs = [spec_of(flow_test), spec_of(flow_test_at_once)]
    return build_server(writes=True, local_principal=principal, specs=[spec for spec in specs if spec])


async def issued_code(client: Client, plan_id: str) -> str:
    asked = await client.call_tool("flow_test", {"plan_id": plan_id, "transaction_id": "t1"})
    assert asked.structured_content["status"] == "confirmation_required", asked
    return asked.structured_content["confirmation"]


async def write(apply: Apply, plan_id: str) -> CallToolResult:
    """The test tool's write on `plan_id`, agreed with a code, `apply` sending it."""
    APPLY[plan_id] = apply
    with anyio.fail_after(30):
        async with Client(server(), mode="legacy") as client:
            code = await issued_code(client, plan_id)
            return await client.call_tool(
                "flow_test", {"plan_id": plan_id, "transaction_id": "t1", "confirmation": code}
            )


async def never_sent(client, snapshot, change):
    raise AssertionError("nothing may be sent")


def refused(result: CallToolResult) -> str:
    """The text of a refused call."""
    assert result.is_error, result.structured_content
    (block,) = result.content
    return block.text


async def the_row(plan_id: str) -> Operation:
    return await Operation.objects.aget(plan_id=plan_id)


async def test_an_applied_write_completes_its_row_with_the_undo_data_learnt_from_the_answer(home):
    learnt = Learnt(transactions=(Seen(id="t1", before=None, after="c1", seen=1),))

    async def apply(client, snapshot, change):
        return Applied(undo_data=learnt)

    result = await write(apply, home.id)

    op = await the_row(home.id)
    assert (op.status, op.confirmed_by, op.error) == ("applied", "code", "")
    assert (op.tool, op.subject, op.preview.splitlines()[0]) == (
        "flow_test",
        {"transaction_id": "t1", "category_id": "c1"},
        QUESTION,
    )
    assert op.undo_data["transactions"][0]["seen"] == 1
    assert result.structured_content["message"] == log.applied_message(op)
    assert (result.structured_content["status"], result.structured_content["operation_id"]) == (
        "applied",
        op.pk,
    )


async def test_a_write_planned_but_not_agreed_logs_nothing(home):
    APPLY[home.id] = never_sent
    async with Client(server(), mode="legacy") as client:
        await issued_code(client, home.id)

    assert not await Operation.objects.filter(plan_id=home.id).aexists()


async def test_a_failure_apply_understands_completes_the_row_as_it_says_and_is_the_tool_error(home):
    async def apply(client, snapshot, change):
        raise WriteFailed("Nothing moved: Tennis is back at 80.00.", undo_data=LANDED)

    result = await write(apply, home.id)

    assert refused(result) == "Nothing moved: Tennis is back at 80.00."
    op = await the_row(home.id)
    assert (op.status, op.error, op.undo_data) == (
        "failed",
        "Nothing moved: Tennis is back at 80.00.",
        LANDED.stored(),
    )


@pytest.mark.parametrize("outcome", ["failed", "unknown", "pending"])
async def test_a_failure_that_landed_in_part_names_its_operation_and_leaves_the_row_as_apply_says(
    outcome, home
):
    """`names_operation`: the person may have to look the operation up or undo it, so the error
    ends with its id; `pending` leaves the row open, still being put back (settling closes it)."""
    said = "Tennis moved, but Savings could not be set: putting Tennis back did not work yet."

    async def apply(client, snapshot, change):
        raise WriteFailed(said, outcome=outcome, undo_data=LANDED, names_operation=True)

    result = await write(apply, home.id)

    op = await the_row(home.id)
    expected = f"{said} The log keeps this as operation {op.pk} ({outcome})."
    assert refused(result) == expected
    assert (op.status, op.error, op.undo_data) == (outcome, expected, LANDED.stored())
    assert (op.completed_at is None) == (outcome == "pending")


async def test_a_bug_after_the_row_began_leaves_it_unknown_with_the_planned_undo_data_and_propagates(
    home, caplog
):
    async def apply(client, snapshot, change):
        raise KeyError("transaction_ids")

    result = await write(apply, home.id)

    assert refused(result) == "Error executing tool flow_test"  # a crash: answered without details
    op = await the_row(home.id)
    assert op.status == "unknown"  # a request may have left before the bug: never claim "failed"
    assert op.error == "Interrupted by KeyError after it began: the change may or may not be in YNAB."
    assert op.undo_data == PLANNED
    assert f"Write {op.pk} of flow_test interrupted by KeyError('transaction_ids')" in caplog.messages
    (crash,) = [record for record in caplog.records if record.exc_info is not None]
    assert isinstance(crash.exc_info[1].__cause__, KeyError)  # it went on up to the SDK, unchanged


async def test_a_cancelled_call_still_completes_its_row_as_unknown(home):
    started = anyio.Event()

    async def apply(client, snapshot, change):
        started.set()
        await anyio.sleep_forever()

    APPLY[home.id] = apply
    with anyio.fail_after(30):
        async with Client(server(), mode="legacy") as client:
            code = await issued_code(client, home.id)
            arguments = {"plan_id": home.id, "transaction_id": "t1", "confirmation": code}
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "flow_test", arguments)
                await started.wait()
                group.cancel_scope.cancel()

    op = await the_row(home.id)  # the server's call was cancelled with the connection, its row completed

    assert (op.status, op.undo_data) == ("unknown", PLANNED)
    assert op.error == "Interrupted by CancelledError after it began: the change may or may not be in YNAB."


@pytest.mark.parametrize("status", [200, 299])
async def test_a_2xx_answer_that_cannot_be_read_is_unknown_not_failed(status, home):
    async def apply(client, snapshot, change):
        raise MalformedAnswer(
            f"YNAB accepted the change ({status}) but its answer could not be read.", status=status
        )

    result = await write(apply, home.id)

    op = await the_row(home.id)
    assert refused(result) == log.unknown_message(op, CHECK)
    assert (op.status, op.error, op.undo_data) == ("unknown", log.unknown_message(op, CHECK), PLANNED)


@pytest.mark.parametrize("status", [None, 400, 300, 429, 500])
async def test_a_ynab_refusal_completes_the_row_as_failed(status, home):
    said = "YNAB refused the change: the category is hidden."

    async def apply(client, snapshot, change):
        raise YnabError(said, status=status)

    result = await write(apply, home.id)

    op = await the_row(home.id)
    assert (op.status, op.undo_data, op.error) == ("failed", PLANNED, said)
    assert refused(result) == f"{said} Nothing was changed (operation {op.pk} is logged as failed)."


async def test_a_write_acting_at_once_is_logged_unconfirmed_with_its_preview_as_the_description(home):
    async def apply(client, snapshot, change):
        return Applied(lead="Recategorised 1 transaction(s).")

    APPLY[home.id] = apply
    async with Client(server(), mode="legacy") as client:
        result = await client.call_tool("flow_test_at_once", {"plan_id": home.id, "transaction_id": "t1"})

    op = await the_row(home.id)
    assert (op.tool, op.status, op.confirmed_by, op.undo_data) == (
        "flow_test_at_once",
        "applied",
        "none",
        PLANNED,
    )
    assert op.preview.splitlines()[0] == QUESTION
    answer = result.structured_content
    assert (answer["status"], answer["preview"], answer["confirmation"]) == ("applied", None, None)
    assert answer["message"] == f"Recategorised 1 transaction(s). {log.applied_message(op)}"


async def test_a_write_acting_at_once_fails_as_a_confirmed_one_does(home):
    async def apply(client, snapshot, change):
        raise KeyError("transaction_ids")

    APPLY[home.id] = apply
    async with Client(server(), mode="legacy") as client:
        result = await client.call_tool("flow_test_at_once", {"plan_id": home.id, "transaction_id": "t1"})

    assert result.is_error
    op = await the_row(home.id)
    assert (op.status, op.confirmed_by, op.undo_data) == ("unknown", "none", PLANNED)


async def test_a_read_only_caller_cannot_write_at_once(home):
    APPLY[home.id] = never_sent
    reader = Principal.local("flow reader", read_only=True)
    async with Client(server(reader), mode="legacy") as client:
        result = await client.call_tool("flow_test_at_once", {"plan_id": home.id, "transaction_id": "t1"})

    assert refused(result) == messages.READ_ONLY
    assert not await Operation.objects.filter(plan_id=home.id).aexists()


def test_the_declared_tools_are_registered_as_write_kinds_by_their_names():
    assert isinstance(kinds.kind_of("flow_test"), FlowTest)
    assert isinstance(kinds.kind_of("flow_test_at_once"), FlowTestAtOnce)
    assert not kinds.kind_of("flow_test").undoable  # it has no reversal
