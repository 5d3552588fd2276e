"""The fault paths of the write harness: what YNAB's failures leave in YNAB and in the log.

Each runs the case's write once, made at once (with a fresh code for a confirmed tool),
with a fault on its write request: the answer lost after YNAB applied it, a refusal, or the
hourly budget running out between the plan read and the write.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from avenir_mcp.oplog import log
from avenir_mcp.ynab_client import get_ynab_client
from tests.writes.checks import (
    MODERN,
    Env,
    WriteCase,
    before,
    call,
    connected,
    error_text,
    inject,
    issued_code,
    latest_operation,
    write_made,
    writes_since,
)

Path = Callable[[WriteCase, Env], Awaitable[None]]


async def _answer_dropped(case: WriteCase, env: Env) -> None:
    """YNAB applies the write but its answer is lost: row `unknown`, undo data kept, never resent."""
    start = await before(case)
    await inject("drop_after_write", case)
    async with connected(MODERN) as client:
        result = await write_made(case, client)
    op = await latest_operation(case)
    assert error_text(result, case) == log.unknown_message(op, case.check)
    assert (op.status, op.undoable) == ("unknown", case.undoable)
    assert await case.state() == case.expected_after  # the sandbox did apply it
    assert await writes_since(case, start.mark) == 1
    case.check_log(op)


async def _lost_before_ynab_ran_it(case: WriteCase, env: Env) -> None:
    """The connection breaks before YNAB runs the write: never claimed applied, never resent.

    The flow cannot tell this from a lost answer, so the row is `unknown` (a tool that reads
    back what landed may know better and say `failed`); YNAB holds nothing of it.
    """
    start = await before(case)
    await inject("drop_before_write", case)
    async with connected(MODERN) as client:
        result = await write_made(case, client)
    op = await latest_operation(case)
    assert op.pk in error_text(result, case)
    assert op.status in ("unknown", "failed")
    assert await case.state() == start.state
    assert await writes_since(case, start.mark) == 1


async def _ynab_refuses(case: WriteCase, env: Env) -> None:
    """YNAB answers 500 to the write: row `failed` with its status, nothing changed."""
    start = await before(case)
    await inject("status", case, status=500)
    async with connected(MODERN) as client:
        result = await write_made(case, client)
    op = await latest_operation(case)
    text = error_text(result, case)
    assert "(500)" in text
    assert op.pk in text
    assert (op.status, op.error.startswith("YNAB failed")) == ("failed", True)
    assert await case.state() == start.state
    assert await writes_since(case, start.mark) == 1


async def _pacing_refuses(case: WriteCase, env: Env) -> None:
    """The hourly budget runs out between the plan read and the write: `failed`, nothing sent."""
    start = await before(case)
    pacer = get_ynab_client().sender.pacer
    async with connected(MODERN) as client:
        code = await issued_code(client, case) if case.confirmed else None
        if code is None:  # the plan known to this process, as after any read (no listing to ask)
            assert not (await client.call_tool("list_accounts", {"plan_id": case.plan_id})).is_error
        env.settings.AVENIR_MCP_YNAB_HOURLY_LIMIT = pacer.used() + 1  # room for the plan read only
        result = await call(client, case, **({"confirmation": code} if code else {}))
    op = await latest_operation(case)
    assert error_text(result, case).startswith("Not sent:")
    assert (op.status, op.error.startswith("Not sent:")) == ("failed", True)
    assert await case.state() == start.state
    assert await writes_since(case, start.mark) == 0


FAULT_PATHS: dict[str, Path] = {
    "the answer to the write is lost": _answer_dropped,
    "the write is lost before YNAB ran it": _lost_before_ynab_ran_it,
    "YNAB refuses the write": _ynab_refuses,
    "pacing refuses the write": _pacing_refuses,
}
