"""The fault matrix: the write tools × the faults YNAB can throw, and a process killed mid-write.

For the representative tools (tests/writes/harness.py: `REPRESENTATIVE_TOOLS`), each of their
write requests and each fault (500, 503, 429, a timeout whose request still lands, the connection
dropped before YNAB ran the request, dropped after); for every other write tool
(`tests/writes/fault_matrix.py` has one entry per tool), the faults that depend on the tool
(`fault_matrix.cells_of`: each request lost, landed and not, and a 500 on the last). The write is made as an
agent would (with a code for confirmed tools), then settled (`oplog.settling`, as the service does before
list_operations answers, once YNAB's pause after a 429 has passed). Then YNAB (the sandbox) and
the log must agree: `applied` ⇔ everything as the write meant, `failed` ⇔ nothing of it,
`unknown` only once settled and only when YNAB's state cannot tell; nothing half done; no
request reaching YNAB more often than it may (never resent). For tools with several write
requests, the process is also killed (`kill -9`) between them and a new one settles at start-up.

With `FAULT_MATRIX_REPORT=path`, each cell's measured outcome is appended to `path` as JSON.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys

import anyio
import httpx2
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from asgiref.sync import sync_to_async
from django.conf import settings

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.oplog import settling
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.models import Fault
from avenir_mcp.ynab_client import client as ynab_client
from avenir_mcp.ynab_client import get_ynab_client
from tests.helpers.processes import next_line, service_env
from tests.writes.checks import MODERN, Before, WriteCase, before, connected, write_made
from tests.writes.fault_matrix import FAULTS, READ_TIMEOUT, SCENARIOS, WriteRequest, cells_of
from tests.writes.harness import REPRESENTATIVE_TOOLS

pytestmark = pytest.mark.anyio

CELLS = [
    (tool, name, fault) for tool, scenario in SCENARIOS.items() for name, fault in cells_of(tool, scenario)
]
# The process stops right before sending `name` (the requests before it answered) and is killed.
STOPS = [(tool, name) for tool, scenario in SCENARIOS.items() for name in scenario.names[1:]]
# A deadline for what the sandbox still does after a call returned (a held request run, logged):
# far beyond a loaded machine's pace, it only ends a wait that would never end.
WAIT_SECONDS = 120


def test_every_write_tool_of_the_catalog_is_in_the_matrix():
    writes = {spec.name for spec in catalog_specs() if not spec.is_read_only}

    missing = writes - SCENARIOS.keys()

    assert not missing, f"add a Scenario to tests/writes/fault_matrix.py for: {sorted(missing)}"


def test_the_representative_tools_are_write_tools_and_one_sends_several_requests():
    """Every fault on every request, and the flow's every path, run on these alone: they must be
    write tools of the catalog, and one of them must send a request after another answered."""
    assert SCENARIOS.keys() >= REPRESENTATIVE_TOOLS
    assert any(len(SCENARIOS[tool].names) > 1 for tool in REPRESENTATIVE_TOOLS)


class _ImpatientFor(httpx2.AsyncBaseTransport):
    """The real transport, with a read timeout shorter than the sandbox's delay for the one
    request a timeout fault holds, the first sent to the target (every other request, a set-back
    or a read back to the same address among them, keeps the client's own timeout)."""

    def __init__(self, target: WriteRequest) -> None:
        self._target = target
        self._waiting = True
        self._transport = httpx2.AsyncHTTPTransport(verify=ynab_client.tls_context())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        target = request.method == self._target.method and re.search(self._target.path, request.url.path)
        if self._waiting and target:
            self._waiting = False
            timeout = dict(request.extensions["timeout"], read=READ_TIMEOUT)
            request.extensions = {**request.extensions, "timeout": timeout}
        return await self._transport.handle_async_request(request)

    async def aclose(self) -> None:
        await self._transport.aclose()


def _impatient_for(target: WriteRequest, monkeypatch) -> None:
    """The process's YNAB client, giving up on `target`'s answer before the sandbox sends it."""
    key = (settings.AVENIR_MCP_YNAB_URL, settings.SANDBOX_TOKEN)
    impatient = ynab_client.YnabClient(base_url=key[0], token=key[1], transport=_ImpatientFor(target))
    monkeypatch.setitem(ynab_client._clients, key, impatient)


@pytest.mark.matrix
@pytest.mark.parametrize(("tool", "request_name", "fault"), CELLS, ids=[" × ".join(cell) for cell in CELLS])
async def test_after_settling_ynab_and_the_log_agree(tool, request_name, fault, monkeypatch):
    scenario = SCENARIOS[tool]
    case = await scenario.case()
    requests = scenario.requests(case)
    [target] = [each for each in requests if each.name == request_name]
    start = await before(case)
    if fault == "timeout":
        _impatient_for(target, monkeypatch)
    await sync_to_async(faults.inject)(method=target.method, path=target.path, **FAULTS[fault])

    async with connected(MODERN) as client:
        result = await write_made(case, client)
    await _sandbox_done(start)
    get_ynab_client().sender.pacer.forget()  # time passes: YNAB's pause after a 429 is over
    await settling.settle_plan(case.plan_id)

    op = await _row(case, start)
    state = await case.state()
    sent = {each.name: await _reached(each, start) for each in requests}
    _report(tool, request_name, fault, result.is_error, op, state, case, start, sent)
    if fault == "timeout":
        assert result.is_error, "the client did not give up on the held request"
    assert op.status in ("applied", "failed") or (op.status == "unknown" and op.settled_at), (
        op.status,
        op.error,
    )
    assert state in (start.state, case.expected_after), "half of the change is in YNAB"
    if op.status == "applied":
        assert state == case.expected_after, op.error
    if op.status == "failed":
        assert state == start.state, op.error
    if not result.is_error:
        assert (result.structured_content["status"], op.status) == ("applied", "applied")
    for each in requests:
        assert sent[each.name] <= each.most, f"{each.name} reached YNAB {sent[each.name]} times"
    await _original_agrees(op)


@pytest.mark.subprocesses
@pytest.mark.parametrize(
    ("tool", "request_name"), STOPS, ids=[f"{tool}, killed before {name} was sent" for tool, name in STOPS]
)
async def test_a_process_killed_between_requests_is_settled_at_start_up(
    tool, request_name, sandbox_url, settings, tmp_path
):
    scenario = SCENARIOS[tool]
    case = await scenario.case()
    requests = scenario.requests(case)
    start = await before(case)
    stop_before = scenario.names.index(request_name) + 1

    with (tmp_path / "stderr").open("wb") as stderr:  # the process has its own copy of the file
        writer = await anyio.open_process(
            [
                sys.executable,
                "-m",
                "tests.writes.dying_writer",
                case.tool,
                json.dumps(case.arguments),
                str(stop_before),
            ],
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
        # Its one line, once the earlier requests answered and this one is held back.
        said = await next_line(BufferedByteReceiveStream(writer.stdout), stderr=tmp_path / "stderr")
        assert said == b"stopped", said
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        if writer.returncode is None:
            writer.kill()
        await writer.wait()  # reaped: its pid is gone, as a dead process's is
        await writer.aclose()
    await _sandbox_done(start)
    op = await _row(case, start)
    assert (op.status, op.writer.endswith(f":{writer.pid}")) == ("pending", True)
    assert await case.state() not in (start.state, case.expected_after)  # half of it is in YNAB now

    settings.AVENIR_MCP_SETTLE_SECONDS = 0  # a new service starting on the same database: its start-up round
    await settling.keep_settling()

    op = await Operation.objects.aget(pk=op.pk)
    state = await case.state()
    sent = {each.name: await _reached(each, start) for each in requests}
    _report(tool, f"killed before {request_name} was sent", "kill -9", True, op, state, case, start, sent)
    assert (op.status, state) == ("failed", start.state), op.error
    assert op.settled_at is not None
    assert "nothing moved" in op.error if tool == "move_money" else op.error, op.error
    for each in requests:
        assert sent[each.name] <= each.most


# --- helpers -------------------------------------------------------------------------------------


async def _row(case: WriteCase, start: Before) -> Operation:
    rows = Operation.objects.filter(plan_id=case.plan_id, tool=case.tool).order_by("-created_at")
    op = await rows.select_related("undo_of").afirst()
    assert op is not None
    assert await Operation.objects.filter(plan_id=case.plan_id).acount() == start.operations + 1
    return op


async def _reached(each: WriteRequest, start: Before) -> int:
    served = await sync_to_async(faults.requests_since)(start.mark)
    pattern = re.compile(each.path)
    return sum(1 for entry in served if entry.method == each.method and pattern.search(entry.path))


async def _sandbox_done(start: Before) -> None:
    """Wait until a request the sandbox was holding (a delay fault) has run and been logged."""

    async def held_requests_logged() -> bool:
        claimed = await Fault.objects.filter(kind=Fault.KIND_DELAY, remaining=0).acount()
        served = await sync_to_async(faults.requests_since)(start.mark)
        return sum(1 for entry in served if entry.fault.startswith("delay")) >= claimed

    await _until(held_requests_logged, "the held request was run")


async def _until(condition, what: str) -> None:
    with anyio.fail_after(WAIT_SECONDS):
        while not await condition():  # noqa: ASYNC110 (another process's rows: nothing to await)
            await anyio.sleep(0.05)


async def _claimed(fault: Fault) -> bool:
    return await Fault.objects.filter(pk=fault.pk, remaining=0).aexists()


async def _original_agrees(op: Operation) -> None:
    """An undo settled as landed makes its original undone; otherwise the original stays in effect."""
    if op.undo_of_id is None:
        return
    original = await Operation.objects.aget(pk=op.undo_of_id)
    if op.status == "applied":
        assert (original.status, original.undone_by_id) == ("undone", op.pk)
    else:
        assert (original.status, original.undone_by_id) == ("applied", None)


def _report(tool, request_name, fault, refused, op, state, case, start, sent) -> None:
    path = os.environ.get("FAULT_MATRIX_REPORT")
    if not path:
        return
    ynab = "as meant" if state == case.expected_after else "as before" if state == start.state else "HALF"
    cell = {
        "tool": tool,
        "request": request_name,
        "fault": fault,
        "answer": "error" if refused else "applied",
        "row": op.status + (" (settled)" if op.settled_at else ""),
        "ynab": ynab,
        "sent": sent,
    }
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(cell) + "\n")
