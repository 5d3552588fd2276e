"""How much of the project one read and one confirmed write pass through, over a real /mcp call.

    .venv/bin/python bench/paths.py [--transactions 2000] [--seed 0] [--list]

Runs against a throwaway SQLite database (`bench/harness.py`): seeds a heavy plan (its size
changes no path, so a small one by default), creates a read-write MCP token, and serves the
real ASGI application (`avenir_site.asgi:application`, writes on, YNAB its own sandbox)
under uvicorn in a thread of this process, as the test suite serves it (`tests/served.py`),
so that a profile hook sees the service's own threads. The MCP SDK's client calls it over
streamable HTTP on a real socket.

The hook (`sys.setprofile`, and `threading.setprofile` for every thread the service
starts) records, while a call is in flight, each function entered whose file is in one of
the project's production packages (`PRODUCTION`: every package but the sandbox); the
sandbox (the "YNAB"), the tests, the benches and third-party code are not counted. A
function is a code object (comprehensions and generator expressions left out, a
coroutine counted once however often it resumes); a module is a file. The window is
the client's call, from the request to the answer; for a write the answer comes after the
operation is logged and completed. Calls are measured after warm-up calls, so nothing is
imported or loaded for the first time inside a window.

Prints one figure a line as `name: value unit`:

- seed_time (s);
- read_<modules|functions>: one warm `get_monthly_summary` that syncs (one delta request,
  `AVENIR_MCP_FRESHNESS_SECONDS=0`, as every write and undo reads);
- read_cached_<modules|functions>: the same read inside the freshness window (no request);
- write_input_required_<...>: one `set_category_budget` at protocol 2026-07-28, the person
  answering yes in the client's form (the SDK's client makes both calls of the round trip);
- write_elicitation_<...>: the same at the older protocol (the question asked during the call);
- write_code_<...>: the same without elicitation: the first call (preview and code) and the
  call with the code, together;
- small_modules: production modules (non-empty `.py` files of those packages, migrations
  left out) under 30 lines, then `small_module[<path>]: <lines> lines` for each;
- exception_classes: exception classes defined in those packages (every module imported).

`--list` adds, for each path, `<path>[<module>]: <n> functions`.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from types import CodeType, FrameType

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    ROOT,
    arguments,
    call_tool,
    figure,
    seed_heavy,
    throwaway_database,
)

PRODUCTION = tuple(
    f"avenir_mcp/{package}"
    for package in (
        *("avenir_site", "mcp_surface", "tools", "oplog", "confirmations", "oauth", "tokens"),
        *("ynab_requests", "ynab_client", "values", "shared_state"),
    )
)
SMALL = 30  # lines
NOT_FUNCTIONS = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<module>"}
CALL_TIMEOUT = 120.0


class PathRecorder:
    """A profile hook collecting the production functions entered while `recording`."""

    def __init__(self) -> None:
        self._prefixes = tuple(f"{ROOT / package}{os.sep}" for package in PRODUCTION)
        self._recording = False
        self._codes: set[CodeType] = set()

    def hook(self, frame: FrameType, event: str, _arg: object) -> None:
        if event == "call" and self._recording and frame.f_code.co_filename.startswith(self._prefixes):
            self._codes.add(frame.f_code)

    async def record(self, call: Callable[[], Awaitable[object]]) -> set[CodeType]:
        """The production code objects entered, in any thread, while `call` runs."""
        self._codes = set()
        self._recording = True
        try:
            await asyncio.wait_for(call(), CALL_TIMEOUT)
        finally:
            self._recording = False
        return set(self._codes)


def report(name: str, codes: set[CodeType], listing: bool) -> None:
    functions = [code for code in codes if code.co_name not in NOT_FUNCTIONS]
    modules = {code.co_filename for code in codes}
    figure(f"{name}_modules", len(modules), "modules", 0)
    figure(f"{name}_functions", len(functions), "functions", 0)
    if listing:
        for module in sorted(modules):
            count = sum(1 for code in functions if code.co_filename == module)
            print(f"{name}[{_relative(module)}]: {count} functions", flush=True)


def _relative(filename: str) -> str:
    return str(Path(filename).relative_to(ROOT))


def production_files() -> list[Path]:
    return sorted(
        path
        for package in PRODUCTION
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def small_modules() -> None:
    sizes = {path: len(path.read_text().splitlines()) for path in production_files()}
    small = {path: lines for path, lines in sizes.items() if 0 < lines < SMALL}
    figure("small_modules", len(small), "modules", 0)
    for path, lines in small.items():
        print(f"small_module[{path.relative_to(ROOT)}]: {lines} lines", flush=True)


def exception_classes(listing: bool) -> None:
    found = set()
    for path in production_files():
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                found.add(f"{name}.{value.__qualname__}")
    figure("exception_classes", len(found), "classes", 0)
    if listing:
        for name in sorted(found):
            print(f"exception_class[{name}]: 1 class", flush=True)


def main() -> None:
    parser = arguments(__doc__)
    parser.set_defaults(transactions=2000)
    parser.add_argument("--list", action="store_true", help="each path's modules and function counts")
    options = parser.parse_args()
    os.environ["AVENIR_MCP_WRITE"] = "1"  # before Django reads its settings: the write tools listed
    with throwaway_database():
        plan_id = seed_heavy(options.transactions, options.seed)
        category_id = _ordinary_category(plan_id)
        token = _read_write_token()
        recorder = PathRecorder()
        threading.setprofile(recorder.hook)  # every thread started from now: the server's, its pools'
        sys.setprofile(recorder.hook)
        try:
            asyncio.run(_measure(recorder, token, plan_id, category_id, options.list))
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
        small_modules()
        exception_classes(options.list)


def _ordinary_category(plan_id: str) -> str:
    from avenir_mcp.sandbox.models import Category

    category = (
        Category.objects.filter(plan_id=plan_id, role=Category.ROLE_NONE, hidden=False, deleted=False)
        .exclude(group__name="Credit Card Payments")
        .order_by("name", "id")
        .first()
    )
    if category is None:
        raise SystemExit("The heavy plan has no ordinary category.")
    return category.id


def _read_write_token() -> str:
    from avenir_mcp.tokens.models import McpToken

    _row, token = McpToken.issue("bench paths")
    return token


async def _measure(recorder: PathRecorder, token: str, plan_id: str, category_id: str, listing: bool) -> None:
    from django.conf import settings

    from tests.served import ServedApp

    with ServedApp() as service:
        # As the suite's `live_service`: the service's YNAB is its own sandbox on this port.
        settings.AVENIR_MCP_SELF_URL = service.url
        settings.AVENIR_MCP_YNAB_URL = f"{service.url}/sandbox/v1"
        summary = {"plan_id": plan_id}

        def budget(amount: str, **extra: object) -> dict:
            return {
                "plan_id": plan_id,
                "month": "current",
                "category_id": category_id,
                "amount": amount,
                **extra,
            }

        async with _client(service.url, token, "2026-07-28") as client:
            settings.AVENIR_MCP_FRESHNESS_SECONDS = 0
            for _ in range(3):  # the cold load, then warm calls: everything imported and loaded
                await call_tool(client, "get_monthly_summary", summary)
            read = await recorder.record(lambda: call_tool(client, "get_monthly_summary", summary))
            settings.AVENIR_MCP_FRESHNESS_SECONDS = 3600
            await call_tool(client, "get_monthly_summary", summary)
            cached = await recorder.record(lambda: call_tool(client, "get_monthly_summary", summary))
            settings.AVENIR_MCP_FRESHNESS_SECONDS = 15
        report("read", read, listing)
        report("read_cached", cached, listing)

        async with _client(service.url, token, "2026-07-28", person=True) as client:
            await _applied(client, budget("101.01"))  # warm-up
            written = await recorder.record(lambda: _applied(client, budget("102.02")))
        report("write_input_required", written, listing)

        async with _client(service.url, token, "legacy", person=True) as client:
            await _applied(client, budget("103.03"))
            written = await recorder.record(lambda: _applied(client, budget("104.04")))
        report("write_elicitation", written, listing)

        async with _client(service.url, token, "2026-07-28") as client:
            await _by_code(client, budget("105.05"))
            written = await recorder.record(lambda: _by_code(client, budget("106.06")))
        report("write_code", written, listing)


@asynccontextmanager
async def _client(url: str, token: str, mode: str, *, person: bool = False) -> AsyncIterator[object]:
    """The SDK's client on /mcp; with `person`, it declares elicitation and the person says yes."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import ElicitResult

    async def says_yes(_context: object, _params: object) -> ElicitResult:
        return ElicitResult(action="accept", content={"value": True})

    options = {"elicitation_callback": says_yes} if person else {}
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=CALL_TIMEOUT)
    )
    transport = streamable_http_client(f"{url}/mcp", http_client=http)
    async with http, Client(transport, mode=mode, **options) as client:
        yield client


async def _applied(client, tool_arguments: dict) -> None:
    result = await client.call_tool("set_category_budget", tool_arguments)
    status = _status(result)
    if status != "applied":
        raise SystemExit(f"set_category_budget answered {status}, not applied: {result.content[0].text}")


async def _by_code(client, tool_arguments: dict) -> None:
    first = await client.call_tool("set_category_budget", tool_arguments)
    if _status(first) != "confirmation_required":
        raise SystemExit(f"set_category_budget answered {_status(first)}: {first.content[0].text}")
    code = first.structured_content["confirmation"]
    await _applied(client, {**tool_arguments, "confirmation": code})


def _status(result) -> str:
    if result.is_error:
        raise SystemExit(f"set_category_budget refused: {result.content[0].text}")
    return (result.structured_content or {}).get("status", "")


if __name__ == "__main__":
    main()
