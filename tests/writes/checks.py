"""What the write paths share: the case a tool describes, the client, and the checks on YNAB and the log.

`tests.writes.harness` is the public face (the path matrix, re-exporting these).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
from asgiref.sync import sync_to_async
from django.conf import settings
from mcp import Client
from mcp.types import CallToolResult, ElicitRequestParams, ElicitResult

from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.ynab_client.client import tls_context
from tests.helpers.servers import catalog_server

MODERN = "2026-07-28"
LEGACY = "legacy"  # the SDK client's handshake era: negotiates 2025-11-25
WRITER = Principal.local("writes test")
CALL_SECONDS = 30


@dataclass
class WriteCase:
    """One write, ready to be made, on a plan no other test uses.

    `state()` reads, through the sandbox, what YNAB holds of what the write changes; it must
    differ from `expected_after` before the write (checked) and equal it once applied.
    `change_plan()` changes YNAB so that the same arguments describe a *different* change
    (not nothing to do): the plan-changed paths use it. `restore()` puts YNAB back as it was
    before the write (the used-code path). `check` is the sentence the tool's error ends
    with when YNAB's answer is lost. `write_method` and `write_path` (a
    regular expression searched in the request path) pick out the write requests;
    `private_values` are payee names and memos (str, matched as substrings) and transaction
    amounts (int milliunits) the log must not keep; `check_log(op)` checks the tool's own
    stored subject and undo data.
    """

    tool: str
    plan_id: str
    arguments: dict[str, Any]
    state: Callable[[], Awaitable[Any]]
    expected_after: Any
    write_method: str
    write_path: str
    check: str
    change_plan: Callable[[], Awaitable[None]] | None = None
    restore: Callable[[], Awaitable[None]] | None = None
    confirmed: bool = True
    undoable: bool = True
    writes_when_applied: int = 1
    private_values: tuple[str | int, ...] = ()
    check_log: Callable[[Operation], None] = lambda op: None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Env:
    """The pytest fixtures a path may need: `settings` (pytest-django) and `monkeypatch`."""

    settings: Any
    monkeypatch: Any


# --- connecting -----------------------------------------------------------------------------


class Person:
    """An elicitation callback answering every question the same way, and remembering them."""

    def __init__(self, action: str, value: object = None, *, before_answer=None) -> None:
        self.action = action
        self.value = value
        self.before_answer = before_answer
        self.questions: list[ElicitRequestParams] = []

    async def __call__(self, context: Any, params: ElicitRequestParams) -> ElicitResult:
        self.questions.append(params)
        if self.before_answer is not None:
            await self.before_answer()
        if self.action == "accept":
            return ElicitResult(action="accept", content={"value": self.value})
        return ElicitResult(action=self.action)

    @property
    def messages(self) -> list[str]:
        return [question.message for question in self.questions]


def says_yes(**options: Any) -> Person:
    return Person("accept", True, **options)


def leaves_unticked() -> Person:
    return Person("accept", False)


def declines() -> Person:
    return Person("decline")


def dismisses() -> Person:
    return Person("cancel")


@asynccontextmanager
async def connected(
    mode: str, person: Person | None = None, principal: Principal = WRITER
) -> AsyncIterator[Client]:
    """An agent connected in memory to the catalog's server with writes, as `principal`.

    With `person` the client declares elicitation and `person` answers; without, it cannot ask.
    """
    server = catalog_server(writes=True, principal=principal)
    options = {"elicitation_callback": person} if person is not None else {}
    with anyio.fail_after(CALL_SECONDS):
        async with Client(server, mode=mode, **options) as client:
            yield client


async def call(client: Client, case: WriteCase, **extra: Any) -> CallToolResult:
    with anyio.fail_after(CALL_SECONDS):
        return await client.call_tool(case.tool, {**case.arguments, **extra})


def content(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a call that is not an error (fails with the error text)."""
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error_text(result: CallToolResult, case: WriteCase) -> str:
    """The message of a refused call: exactly the tool's sentence (no SDK prefix before it)."""
    assert result.is_error, result.structured_content
    (block,) = result.content
    assert not block.text.startswith("Error executing tool"), block.text
    return block.text


def documented_fingerprint(plan_id: str, subject: dict) -> str:
    """docs/confirmation.md#subjects-and-the-fingerprint: SHA-256 of the JSON of [plan_id, subject], keys
    sorted (compact); a list's order does not matter, so each list's elements are put in the order of their
    own JSON."""
    text = _json([plan_id, _order_free(subject)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _order_free(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _order_free(item) for key, item in value.items()}
    if isinstance(value, list):
        return sorted((_order_free(item) for item in value), key=_json)
    return value


# --- the sandbox, as YNAB ---------------------------------------------------------------------------


def sandbox_http() -> httpx2.Client:
    """A client of the live sandbox's API v1 with its token (for arranging a plan in a fixture)."""
    headers = {"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"}
    return httpx2.Client(
        base_url=settings.AVENIR_MCP_YNAB_URL, headers=headers, timeout=30, verify=tls_context()
    )


async def ynab(method: str, path: str, **options: Any) -> dict[str, Any]:
    """The sandbox's `data` for one request, e.g. `await ynab("GET", f"/plans/{plan_id}/transactions")`."""
    headers = {"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"}
    async with httpx2.AsyncClient(
        base_url=settings.AVENIR_MCP_YNAB_URL, headers=headers, timeout=30, verify=tls_context()
    ) as http:
        response = await http.request(method, path, **options)
    assert response.is_success, response.text
    return response.json()["data"]


async def make_available(plan_id: str, day: str, category_id: str, milliunits: int) -> None:
    """Give the category `milliunits` available in the month of `day` (YYYY-MM-DD), as the person
    would in YNAB's app: its assigned amount there raised or lowered by the difference."""
    path = f"/plans/{plan_id}/months/{day[:7]}-01/categories/{category_id}"
    now = (await ynab("GET", path))["category"]
    budgeted = now["budgeted"] + milliunits - now["balance"]
    await ynab("PATCH", path, json={"category": {"budgeted": budgeted}})


# --- what YNAB and the log hold -----------------------------------------------------------------


@dataclass(frozen=True)
class Before:
    """Where things stood before a call: the request log's position, YNAB's state, the log's rows."""

    mark: int
    state: Any
    operations: int


async def before(case: WriteCase) -> Before:
    """The starting point of a call; the case's state must not already be the expected one."""
    state = await case.state()
    assert state != case.expected_after, "the case's write would change nothing: it proves nothing"
    return await standing(case)


async def standing(case: WriteCase) -> Before:
    """Where things stand now, whatever the state (after `change_plan`, for instance)."""
    state = await case.state()  # read first, so the mark comes after this read
    mark = await sync_to_async(faults.last_request_id)()
    return Before(mark=mark, state=state, operations=await operations_of(case))


async def operations_of(case: WriteCase) -> int:
    return await Operation.objects.filter(plan_id=case.plan_id).acount()


async def requests_since(mark: int) -> list[str]:
    """Every request that reached the sandbox after `mark`, as `METHOD path`."""
    served = await sync_to_async(faults.requests_since)(mark)
    return [f"{entry.method} {entry.path}" for entry in served]


async def writes_since(case: WriteCase, mark: int) -> int:
    """How many of the case's write requests reached the sandbox after `mark`."""
    served = await sync_to_async(faults.requests_since)(mark)
    pattern = re.compile(case.write_path)
    return sum(1 for entry in served if entry.method == case.write_method and pattern.search(entry.path))


async def expect_applied(
    case: WriteCase, start: Before, result: CallToolResult, *, confirmed_by: str
) -> Operation:
    """Applied once: YNAB as expected, one write, one applied row that keeps nothing private."""
    answer = content(result)
    assert answer["status"] == "applied", answer
    assert answer["plan_id"] == case.plan_id
    assert await case.state() == case.expected_after
    assert await writes_since(case, start.mark) == case.writes_when_applied
    assert await operations_of(case) == start.operations + 1
    op = await Operation.objects.aget(pk=answer["operation_id"])
    assert (op.status, op.confirmed_by, op.tool, op.plan_id) == (
        "applied",
        confirmed_by,
        case.tool,
        case.plan_id,
    )
    assert op.completed_at is not None
    assert op.undoable == case.undoable
    assert op.pk in answer["message"]
    if case.confirmed:
        assert op.preview == answer["preview"]
        assert answer["preview"].splitlines()[0].endswith("?")
    else:
        assert answer["preview"] is None
    assert answer["confirmation"] is None
    expect_nothing_private(case, op)
    case.check_log(op)
    return op


async def expect_nothing_written(case: WriteCase, start: Before) -> None:
    """Nothing reached YNAB's data and the log has no new row."""
    assert await case.state() == start.state
    assert await writes_since(case, start.mark) == 0
    assert await operations_of(case) == start.operations


def expect_nothing_private(case: WriteCase, op: Operation) -> None:
    """The stored subject and the undo data hold no payee text, memo or transaction amount."""
    kept = list(_leaves([op.subject, op.undo_data]))
    for value in case.private_values:
        if isinstance(value, str):
            assert not any(isinstance(leaf, str) and value in leaf for leaf in kept), value
        else:
            assert not any(type(leaf) is int and abs(leaf) == abs(value) for leaf in kept), value


def _leaves(value: Any) -> Any:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


async def latest_operation(case: WriteCase) -> Operation:
    return await Operation.objects.filter(plan_id=case.plan_id).order_by("-created_at").afirst()


async def inject(kind: str, case: WriteCase, **options: Any) -> None:
    """A sandbox fault on the case's next write request."""
    await sync_to_async(faults.inject)(kind, method=case.write_method, path=case.write_path, **options)


async def write_made(case: WriteCase, client: Client) -> CallToolResult:
    """The call that makes the write at once: with a fresh code for a confirmed tool."""
    if not case.confirmed:
        return await call(client, case)
    first = content(await call(client, case))
    assert first["status"] == "confirmation_required", first
    return await call(client, case, confirmation=first["confirmation"])


async def issued_code(client: Client, case: WriteCase) -> str:
    """A fresh confirmation code for the case's change (a client that cannot ask)."""
    first = content(await call(client, case))
    assert first["status"] == "confirmation_required", first
    return first["confirmation"]
