"""The shared test harness of the write tools: one case per tool, every path the person may take.

A tool's tests describe their write once, as a `WriteCase` on a fresh sandbox plan, and run
its paths against it: every path for the representative tools (`REPRESENTATIVE_TOOLS`), the paths
that depend on the tool itself for every other (`paths_for`, `TOOLS_OWN_PATHS`):

    PATHS = paths_for("flag_transactions", CONFIRMED_PATHS)   # ARGUMENTS_ONLY_PATHS, UNCONFIRMED_PATHS
    FAULTS = paths_for("flag_transactions", FAULT_PATHS)

    @pytest.fixture
    def case() -> WriteCase:
        ...   # a plan of its own, the arguments, how to read what YNAB holds, what to expect

    @pytest.fixture(scope="module")
    def shared_case(live_service) -> Iterator[WriteCase]:
        with case_shared_by_module(...) as case:   # the same case, made once on a plan of its own
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

Each is marked `matrix` (pyproject.toml): `make test` runs every cell, `make check` leaves them
to it and runs the tool's other tests.

Every path goes through the SDK's real client (in memory, the catalog's server with writes),
then checks YNAB's side through the sandbox: the state is `expected_after` exactly when the
change should be in YNAB and untouched otherwise; the write reached YNAB exactly
`writes_when_applied` times, or never; the log has one new row, completed as it should be,
keeping none of `private_values`, or no new row at all (`tests.writes.checks`).

A path that writes nothing (a no, a refused code) leaves the plan as it was, so a module runs all
of those on one plan (`case_shared_by_module`, checked unchanged after them); every other path
gets a plan of its own.

The paths: the three ways to ask (docs/confirmation.md#three-ways-to-ask) with each answer, every refused
code, the plan changing between the preview and the answer (each way), and every row of the
`AVENIR_MCP_REQUIRE_ELICITATION=1` table; for unconfirmed tools, acting at once whatever
the client can do; and the faults (an answer lost, YNAB refusing, pacing refusing).

Most of those paths are the flow's, not the tool's (`TOOLS_OWN_PATHS` says which are the tool's
and why): they run on the representative tools only, and `tests/writes/fault_matrix.py` splits
the fault matrix the same way.
"""

from __future__ import annotations

import functools
import inspect
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

from asgiref.sync import async_to_sync, sync_to_async
from mcp.types import CallToolResult, ElicitResult, InputRequiredResult

from avenir_mcp.confirmations import codes, messages
from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.sandbox.models import Plan
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.tokens.models import McpToken
from tests.helpers.shared_plans import read_only
from tests.mcp.answers import summary
from tests.writes.checks import (
    LEGACY,
    MODERN,
    Before,
    Env,
    Person,
    WriteCase,
    before,
    call,
    connected,
    content,
    declines,
    dismisses,
    documented_fingerprint,
    error_text,
    expect_applied,
    expect_nothing_written,
    issued_code,
    leaves_unticked,
    says_yes,
    standing,
    writes_since,
)
from tests.writes.fault_paths import FAULT_PATHS

Path = Callable[[WriteCase, Env], Awaitable[None]]
YES = {"confirm": ElicitResult(action="accept", content={"value": True})}

__all__ = [
    "ANSWER_WAYS",
    "ARGUMENTS_ONLY_PATHS",
    "CONFIRMED_PATHS",
    "FAULT_PATHS",
    "LEGACY",
    "MODERN",
    "REPRESENTATIVE_TOOLS",
    "TOOLS_OWN_PATHS",
    "UNCONFIRMED_PATHS",
    "Before",
    "Env",
    "Person",
    "WriteCase",
    "answered_after",
    "before",
    "call",
    "case_shared_by_module",
    "connected",
    "content",
    "documented_fingerprint",
    "error_text",
    "expect_applied",
    "expect_nothing_written",
    "own_paths",
    "paths_for",
    "paths_that_write",
    "paths_that_write_nothing",
    "standing",
    "writes_since",
]


# --- the person answers -----------------------------------------------------------------------


async def _applied_after_yes(case: WriteCase, mode: str, confirmed_by: str) -> None:
    start = await before(case)
    person = says_yes()
    async with connected(mode, person) as client:
        result = await call(client, case)
    await expect_applied(case, start, result, confirmed_by=confirmed_by)
    assert person.messages == [content(result)["preview"]]


async def _declined(case: WriteCase, mode: str, person: Person) -> None:
    start = await before(case)
    async with connected(mode, person) as client:
        result = await call(client, case)
    answer = content(result)
    assert (answer["status"], answer["message"]) == ("declined", messages.DECLINED)
    assert (answer["operation_id"], answer["preview"], answer["confirmation"]) == (None, None, None)
    assert len(person.questions) == 1
    await expect_nothing_written(case, start)


async def _code_then_applied(case: WriteCase, mode: str, person: Person | None) -> None:
    """No answer in the client: a code, nothing written; the same call with it applies."""
    start = await before(case)
    async with connected(mode, person) as client:
        issued = await call(client, case)
        first = content(issued)
        assert first["status"] == "confirmation_required", first
        assert summary(issued) == first["message"]  # text-only clients get the preview in the JSON after it
        assert first["message"] == messages.code_message(first["confirmation"])
        assert first["operation_id"] is None
        assert first["preview"].splitlines()[0].endswith("?")
        await expect_nothing_written(case, start)
        result = await call(client, case, confirmation=first["confirmation"])
    op = await expect_applied(case, start, result, confirmed_by="code")
    assert op.preview == first["preview"]


def _yes(mode: str, confirmed_by: str) -> Path:
    return lambda case, env: _applied_after_yes(case, mode, confirmed_by)


def _no(mode: str, person: Callable[[], Person]) -> Path:
    return lambda case, env: _declined(case, mode, person())


def _code(mode: str, person: Callable[[], Person] | None) -> Path:
    return lambda case, env: _code_then_applied(case, mode, person() if person else None)


# --- refused codes ------------------------------------------------------------------------------


async def _wrong_code(case: WriteCase, env: Env) -> None:
    start = await before(case)
    async with connected(MODERN) as client:
        await issued_code(client, case)
        refused = await call(client, case, confirmation="AAAAAAAAAAA")
    assert error_text(refused, case) == messages.CODE_REFUSED
    await expect_nothing_written(case, start)


async def _expired_code(case: WriteCase, env: Env) -> None:
    clock = _Clock()
    env.monkeypatch.setattr(codes, "store", codes.ConfirmationStore(clock=clock))
    start = await before(case)
    async with connected(MODERN) as client:
        code = await issued_code(client, case)
        clock.now += codes.LIFETIME_SECONDS
        refused = await call(client, case, confirmation=code)
    assert error_text(refused, case) == messages.CODE_REFUSED
    await expect_nothing_written(case, start)


async def _reused_code(case: WriteCase, env: Env) -> None:
    """A code applies once; with YNAB put back as before, the same code is refused."""
    assert case.restore is not None, "the reused-code path needs case.restore"
    start = await before(case)
    async with connected(MODERN) as client:
        code = await issued_code(client, case)
        await expect_applied(case, start, await call(client, case, confirmation=code), confirmed_by="code")
        await case.restore()
        again = await standing(case)
        refused = await call(client, case, confirmation=code)
    assert error_text(refused, case) == messages.CODE_REFUSED
    await expect_nothing_written(case, again)


async def _other_tokens_code(case: WriteCase, env: Env) -> None:
    """A code is spent only by the token it was issued to; another's attempt burns it."""
    alice, bob = Principal.of_token(await _new_token()), Principal.of_token(await _new_token())
    start = await before(case)
    async with connected(MODERN, principal=alice) as by_alice, connected(MODERN, principal=bob) as by_bob:
        code = await issued_code(by_alice, case)
        by_bob_refused = await call(by_bob, case, confirmation=code)
        by_alice_refused = await call(by_alice, case, confirmation=code)
    assert error_text(by_bob_refused, case) == messages.CODE_REFUSED
    assert error_text(by_alice_refused, case) == messages.CODE_REFUSED
    await expect_nothing_written(case, start)


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _new_token() -> McpToken:
    token, _plaintext = await sync_to_async(McpToken.issue)(f"writes {uuid.uuid4().hex[:12]}")
    return token


# --- the plan changes between the preview and the answer -------------------------------------------


async def _changed_before_the_modern_answer(case: WriteCase, env: Env) -> None:
    await before(case)
    async with connected(MODERN, says_yes()) as client:
        first = await client.session.call_tool(case.tool, case.arguments, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        await _change(case)
        start = await standing(case)
        second = await client.session.call_tool(
            case.tool,
            case.arguments,
            input_responses=YES,
            request_state=first.request_state,
            allow_input_required=True,
        )
    assert error_text(second, case) == messages.PLAN_CHANGED
    await expect_nothing_written(case, start)


async def _changed_while_the_question_waited(case: WriteCase, env: Env) -> None:
    """At an older protocol the person answers yes after YNAB changed: nothing is written."""
    await before(case)
    starts: list[Before] = []

    async def change_then_answer() -> None:
        await _change(case)
        starts.append(await standing(case))

    async with connected(LEGACY, says_yes(before_answer=change_then_answer)) as client:
        result = await call(client, case)
    assert error_text(result, case) == messages.PLAN_CHANGED
    await expect_nothing_written(case, starts[0])


async def _changed_before_the_code_came_back(case: WriteCase, env: Env) -> None:
    await before(case)
    async with connected(MODERN) as client:
        code = await issued_code(client, case)
        await _change(case)
        start = await standing(case)
        refused = await call(client, case, confirmation=code)
    assert error_text(refused, case) == messages.CODE_REFUSED
    await expect_nothing_written(case, start)


async def _change(case: WriteCase) -> None:
    assert case.change_plan is not None, "the plan-changed paths need case.change_plan"
    await case.change_plan()


# --- something else changes between the preview and the answer ---------------------------------------


ANSWER_WAYS = ("2026-07-28 answer", "legacy answer", "code")
"""The three ways a person's yes comes back (docs/confirmation.md#three-ways-to-ask), for `answered_after`."""


async def answered_after(
    way: str, case: WriteCase, meanwhile: Callable[[], Awaitable[None]]
) -> CallToolResult:
    """The case's call, answered yes in `way`, with `meanwhile()` run in YNAB between the preview
    and the answer; the final result. For tools whose subject is their arguments alone, a change
    elsewhere in the plan must not stop the person's yes (the same request is accepted)."""
    if way == "2026-07-28 answer":
        async with connected(MODERN, says_yes()) as client:
            first = await client.session.call_tool(case.tool, case.arguments, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            await meanwhile()
            return await client.session.call_tool(
                case.tool,
                case.arguments,
                input_responses=YES,
                request_state=first.request_state,
                allow_input_required=True,
            )
    if way == "legacy answer":
        async with connected(LEGACY, says_yes(before_answer=meanwhile)) as client:
            return await call(client, case)
    assert way == "code", way
    async with connected(MODERN) as client:
        code = await issued_code(client, case)
        await meanwhile()
        return await call(client, case, confirmation=code)


# --- AVENIR_MCP_REQUIRE_ELICITATION=1 ------------------------------------------------------------


def _required(path: Path) -> Path:
    async def required(case: WriteCase, env: Env) -> None:
        env.settings.AVENIR_MCP_REQUIRE_ELICITATION = True
        await path(case, env)

    return required


async def _required_dismissed(case: WriteCase, env: Env) -> None:
    await _declined(case, MODERN, dismisses())


async def _required_refused(case: WriteCase, mode: str, expected: str, **extra: str) -> None:
    start = await before(case)
    async with connected(mode) as client:
        refused = await call(client, case, **extra)
    assert error_text(refused, case) == expected
    await expect_nothing_written(case, start)


CONFIRMED_PATHS: dict[str, Path] = {
    "2026-07-28: yes": _yes(MODERN, "input_required"),
    "2026-07-28: box unticked": _no(MODERN, leaves_unticked),
    "2026-07-28: declined": _no(MODERN, declines),
    "2026-07-28: dismissed, then the code": _code(MODERN, dismisses),
    "legacy: yes": _yes(LEGACY, "elicitation"),
    "legacy: box unticked": _no(LEGACY, leaves_unticked),
    "legacy: declined": _no(LEGACY, declines),
    "legacy: dismissed, then the code": _code(LEGACY, dismisses),
    "no elicitation 2026-07-28: the code": _code(MODERN, None),
    "no elicitation legacy: the code": _code(LEGACY, None),
    "a wrong code": _wrong_code,
    "an expired code": _expired_code,
    "a used code": _reused_code,
    "another token's code": _other_tokens_code,
    "plan changed before the 2026-07-28 answer": _changed_before_the_modern_answer,
    "plan changed while the legacy question waited": _changed_while_the_question_waited,
    "plan changed before the code came back": _changed_before_the_code_came_back,
    "required, 2026-07-28: yes": _required(_yes(MODERN, "input_required")),
    "required, legacy: yes": _required(_yes(LEGACY, "elicitation")),
    "required: dismissed is declined": _required(_required_dismissed),
    "required: a client that cannot ask": _required(
        lambda case, env: _required_refused(case, MODERN, messages.CLIENT_CANNOT_ASK)
    ),
    "required: a code passed": _required(
        lambda case, env: _required_refused(case, MODERN, messages.CODES_DISABLED, confirmation="AAAAAAAAAAA")
    ),
}


WRITING_NOTHING = frozenset(
    {
        "2026-07-28: box unticked",
        "2026-07-28: declined",
        "legacy: box unticked",
        "legacy: declined",
        "a wrong code",
        "an expired code",
        "another token's code",
        "required: dismissed is declined",
        "required: a client that cannot ask",
        "required: a code passed",
    }
)
"""The confirmed paths that end with nothing written to YNAB and no row logged (each checks it):
the person says no, or the code or the call is refused."""


def paths_that_write(paths: dict[str, Path]) -> dict[str, Path]:
    """The paths that may write (or change the plan first): each is run on a plan of its own."""
    return {name: path for name, path in paths.items() if name not in WRITING_NOTHING}


def paths_that_write_nothing(paths: dict[str, Path]) -> dict[str, Path]:
    """The paths that leave the plan as it was: a module runs them all on `case_shared_by_module`."""
    return {name: path for name, path in paths.items() if name in WRITING_NOTHING}


@contextmanager
def case_shared_by_module(make: Callable[[], WriteCase | Awaitable[WriteCase]]) -> Iterator[WriteCase]:
    """`make()` once, for the paths that write nothing (`paths_that_write_nothing`): its plan is
    checked unchanged after them all (`tests.helpers.shared_plans.read_only`).

    `make` seeds a plan of its own and returns the case on it, or an awaitable of the case.
    """
    made = make()
    case = async_to_sync(_awaited)(made) if inspect.isawaitable(made) else made
    with read_only(Plan.objects.get(pk=case.plan_id)):
        yield case


async def _awaited(made: Awaitable[WriteCase]) -> WriteCase:
    return await made


ARGUMENTS_ONLY_PATHS: dict[str, Path] = {
    name: path for name, path in CONFIRMED_PATHS.items() if not name.startswith("plan changed")
}
"""The paths for a write whose subject is its arguments alone (the table of
docs/confirmation.md#subjects-and-the-fingerprint): nothing YNAB holds makes the same arguments a different
change, so "plan changed" has no case; each such tool's own test of the same request accepted after a change
in YNAB covers it instead."""


# --- tools that act at once ------------------------------------------------------------------------


async def _at_once(case: WriteCase, mode: str, person: Person | None) -> None:
    """Applied by the first call, logged `none`, whatever the client can do; nobody is asked."""
    start = await before(case)
    async with connected(mode, person) as client:
        result = await call(client, case)
    await expect_applied(case, start, result, confirmed_by="none")
    assert person is None or person.questions == []


def _acts(mode: str, person: Callable[[], Person] | None) -> Path:
    return lambda case, env: _at_once(case, mode, person() if person else None)


UNCONFIRMED_PATHS: dict[str, Path] = {
    "2026-07-28, client can ask": _acts(MODERN, says_yes),
    "legacy, client can ask": _acts(LEGACY, says_yes),
    "2026-07-28, client cannot ask": _acts(MODERN, None),
    "legacy, client cannot ask": _acts(LEGACY, None),
    "required elicitation does not concern it": _required(_acts(MODERN, None)),
}


# --- which paths each tool runs ------------------------------------------------------------------

REPRESENTATIVE_TOOLS = frozenset({"flag_transactions", "reconcile_account", "approve_transactions"})
"""The write tools that run every path (and, in tests/writes/fault_matrix.py, every fault on every
request): between them they take each branch of the shared write flow (avenir_mcp/tools/writes/flow.py,
confirmations, oplog.changes, the answers of mcp_surface).

- flag_transactions: a confirmed tool sending one request, whose subject is read from the plan
  (a change in YNAB makes the same arguments a different change, so every "plan changed" path has
  a case) and whose write can be put back (`restore`, for the used code).
- reconcile_account (its case with an adjustment): a confirmed tool sending two requests, the
  second after the first answered, with a result status of its own; a fault on either request,
  and the process killed between them.
- approve_transactions: the unconfirmed flow (`unconfirmed_write`): acting at once, logged
  `none`, whatever the client can do.
"""

TOOLS_OWN_PATHS = frozenset(
    {
        "2026-07-28: yes",
        "legacy: yes",
        "no elicitation 2026-07-28: the code",
        "legacy: declined",
        "plan changed before the 2026-07-28 answer",
        "2026-07-28, client can ask",
        "the answer to the write is lost",
    }
)
"""The paths that depend on the tool itself, run for every write tool.

A yes by each way to ask builds the tool's change again at the answer and needs the same subject:
in the next call from the request state (2026-07-28), in the same call after the question waited
(legacy, `_rebuild`), in another call from the code's fingerprint; then the tool's `apply`, its
log row and its result. A code is the same two calls at either protocol, so one era's code serves.
A no answers with the tool's result model around its change's fields, and shows that the tool
sent nothing before the answer. The plan changed before the answer shows the tool's subject covers
what the person saw (one way suffices: the three compare the same fingerprint). An unconfirmed tool
acts at once without asking a client that could. A lost answer leaves the row `unknown` with the
tool's own check sentence and undo data, keeping none of its private values.

The rest are the flow's: the other answers (box unticked, dismissed, a code after a dismissal, at
the other era) are read by `confirmations.confirm` before the tool is involved again; a refused
code (wrong, expired, used, another token's) is refused by the code store before anything is read;
the `AVENIR_MCP_REQUIRE_ELICITATION=1` rows only change how the flow asks; the other plan-changed
ways compare the same fingerprint elsewhere in the flow; a write lost before YNAB ran it, YNAB's
refusal and pacing's are answered by `oplog.changes` whatever the request was.
"""


def own_paths(paths: dict[str, Path]) -> dict[str, Path]:
    """Of `paths`, those that depend on the tool itself (`TOOLS_OWN_PATHS`)."""
    return {name: path for name, path in paths.items() if name in TOOLS_OWN_PATHS}


def paths_for(tool: str, paths: dict[str, Path]) -> dict[str, Path]:
    """The paths `tool`'s tests run: all of `paths` for a representative tool (`REPRESENTATIVE_TOOLS`),
    else `own_paths(paths)`. `paths` is any table of this module (CONFIRMED_PATHS, ARGUMENTS_ONLY_PATHS,
    UNCONFIRMED_PATHS, FAULT_PATHS, or a part of one)."""
    assert tool in _write_tools(), f"{tool} is not a write tool of the catalog"
    return dict(paths) if tool in REPRESENTATIVE_TOOLS else own_paths(paths)


@functools.cache
def _write_tools() -> frozenset[str]:
    return frozenset(spec.name for spec in catalog_specs() if not spec.is_read_only)
