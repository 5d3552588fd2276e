"""Benchmark of start-up: process start to ready, and memory with one or two stored plans.

    .venv/bin/python bench/startup.py [--runs 10] [--transactions 50000] [--seed 0] [--settle 3]
        [--only runserver|runserver-noreload|stdio ...] [--against OTHER_CHECKOUT]
        [--no-bytecode-cache]

Runs against a throwaway SQLite database and data folders (`bench/harness.py`), never the
project's: migrates, seeds the heavy plan and the demo plan in the sandbox, then stores plans
as a person's sessions leave them (a stdio session that reads a plan stores it as it ends):

- `demo`: a data folder holding the demo plan only;
- `demo+heavy`: the heavy plan and the demo, the demo used last (the plan the runs read);
- `heavy+demo`: the same two plans, the heavy plan used last (a person who then reads the demo).

Each run starts from a copy of its store as it was left (file times kept), so every run sees
the same store whatever the run before it stored.

The commands run as a person runs them, on the embedded sandbox (no YNAB key, no YNAB URL), at
one fixed address, so the stored plans are theirs in every run:

- runserver: `manage.py runserver 127.0.0.1:PORT`, what `make run` serves (with its reloader);
- runserver-noreload: `runserver --noreload`;
- stdio: `manage.py mcp_stdio`, what a desktop client starts.

Ready: the answer to MCP's `initialize`. Over HTTP, a POST to /mcp with a read-only token, sent
again every 10 ms until a connection is accepted (a connection accepted before the application
serves waits for its answer); over stdio, written to stdin as soon as the process is started.

Each run is timed from just before the process is started to ready (`ready`), with the CPU
its processes had used by then (`ready_cpu`: user and system, every process of the command;
on a shared machine it moves less than the time does); then the demo plan is read once
(`list_accounts`, through /mcp or over stdio), `--settle` seconds pass (a load in the
background has finished by then), and the serving process's resident memory (`rss`, VmRSS)
and its peak (`rss_peak`, VmHWM) are read from /proc; the process is then stopped as its
manager stops it (SIGTERM; stdin closed for stdio). One run of each command first, not
counted. Prints, per command and store, the minimum, median and maximum of `--runs` runs, one
figure a line as `name: min / median / max unit`, and the load average at the start and end.

`--against DIR`: another checkout of the project (an older commit, `git worktree add`), its
commands measured too, a run of each in turn, so both see the same load; names then start with
`this ` or `against `.

Bytecode: Python caches what it compiles (`__pycache__`), so on a person's machine every start
after the first reads the project's modules compiled. Where the environment says not to write
that cache (PYTHONDONTWRITEBYTECODE), every start compiles the project again; the processes
measured here keep their cache in the throwaway folder instead (PYTHONPYCACHEPREFIX; never in
the checkout), filled by the uncounted run. `--no-bytecode-cache` measures them without it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import httpx2

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
from bench.harness import (  # noqa: E402 (needs the path above)
    MB,
    ROOT,
    Service,
    arguments,
    call_tool,
    cpu_seconds,
    mcp_client,
    read_only_token,
    seed_heavy,
    throwaway_database,
)

DEMO_READ = "list_accounts"
START_TIMEOUT = 300.0  # far beyond a start on a loaded two-core machine: only a stuck one reaches it
PROTOCOL_VERSION = "2025-11-25"


@dataclass(frozen=True)
class Measured:
    """One run: seconds from start to ready, CPU seconds the command's processes had used by
    then, and the serving process's memory after the read (MB)."""

    ready: float
    cpu: float
    rss: float
    rss_peak: float


@dataclass(frozen=True)
class Setup:
    """What every run shares: the checkout whose commands run, their environment, the address
    served, a read-only MCP token, the demo plan, and the seconds between the read and memory."""

    root: Path
    env: dict[str, str]
    port: int
    token: str
    demo_id: str
    settle: float


Run = Callable[[Setup, Path], Measured]  # one run on a data folder


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds between the read and memory")
    parser.add_argument("--no-bytecode-cache", action="store_true")
    parser.add_argument("--only", choices=COMMANDS, action="append", help="measure these commands only")
    parser.add_argument("--against", type=Path, help="another checkout, measured run for run in turn")
    options = parser.parse_args()
    with throwaway_database(), tempfile.TemporaryDirectory(prefix="avenir-bench-startup-") as workdir:
        heavy_id = seed_heavy(options.transactions, options.seed)
        port = _free_port()
        this = Setup(
            root=ROOT,
            env=_child_env(Path(workdir), port, bytecode_cache=not options.no_bytecode_cache),
            port=port,
            token=read_only_token("bench startup"),
            demo_id=_seed_demo(),
            settle=options.settle,
        )
        setups = {"": this}
        if options.against:
            setups = {"this ": this, "against ": replace(this, root=options.against.resolve())}
        stores = {
            "demo": [this.demo_id],
            "demo+heavy": [heavy_id, this.demo_id],
            "heavy+demo": [this.demo_id, heavy_id],
        }
        print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()), flush=True)
        kept = {name: _store_by_reading(this, Path(workdir) / name, plans) for name, plans in stores.items()}
        for command in options.only or COMMANDS:
            serve = COMMANDS[command]
            for setup in setups.values():  # not counted: fills the bytecode and file caches
                _on_a_copy(serve, setup, kept["demo"], Path(workdir) / "warm-up")
            for store, data in kept.items():
                results: dict[str, list[Measured]] = {label: [] for label in setups}
                for run in range(options.runs):
                    for label, setup in setups.items():  # in turn, so both see the same load
                        copy = Path(workdir) / f"run-{command}-{store}-{run}"
                        results[label].append(_on_a_copy(serve, setup, data, copy))
                for label, measured in results.items():
                    name = f"{label}{command} {store}"
                    _line(f"{name} ready", [run.ready for run in measured], "s", 2)
                    _line(f"{name} ready_cpu", [run.cpu for run in measured], "s", 2)
                    _line(f"{name} rss", [run.rss for run in measured], "MB", 1)
                    _line(f"{name} rss_peak", [run.rss_peak for run in measured], "MB", 1)
        print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()), flush=True)


def _on_a_copy(serve: Run, setup: Setup, data: Path, copy: Path) -> Measured:
    """One run on a copy of the data folder (file times kept), so every run sees the same store."""
    shutil.copytree(data, copy, copy_function=shutil.copy2)
    try:
        return serve(setup, copy)
    finally:
        shutil.rmtree(copy)


def _seed_demo() -> str:
    from avenir_mcp.sandbox.seeding import seed_demo_plan

    return seed_demo_plan().id


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _child_env(workdir: Path, port: int, *, bytecode_cache: bool) -> dict[str, str]:
    """This process's environment (the throwaway database) for the commands measured: the
    embedded sandbox at one address (the stored plans are its own), a secret key of their own
    (it seals the stored plans)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"AVENIR_MCP_YNAB_URL", "AVENIR_MCP_DATA_DIR", "YNAB_API_KEY", "PORT"}
    }
    env.update(
        AVENIR_MCP_SELF_URL=f"http://127.0.0.1:{port}",
        DJANGO_SECRET_KEY="bench-startup-" + os.urandom(16).hex(),
        LOG_LEVEL="WARNING",
    )
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    return env


def _store_by_reading(setup: Setup, data: Path, plan_ids: list[str]) -> Path:
    """`data`, holding `plan_ids`, the last one used last: a stdio session per plan reads it (the
    first read of a plan is a full export) and stores it as the session ends."""
    for plan_id in plan_ids:
        with _stdio(setup, data) as (_process, ask):
            ask("tools/call", {"name": DEMO_READ, "arguments": {"plan_id": plan_id}})
        time.sleep(0.05)  # the next plan's use is later by more than the file system's resolution
    stored = list((data / "plans").glob("*.plan"))
    if len(stored) != len(plan_ids):
        raise SystemExit(f"{data} holds {len(stored)} stored plans, not {len(plan_ids)}.")
    return data


# --- stdio ---------------------------------------------------------------------------------------


@contextmanager
def _stdio(setup: Setup, data: Path) -> Iterator[tuple[subprocess.Popen, Callable[..., dict]]]:
    """`manage.py mcp_stdio` started and initialized; `ask(method, params)` sends a request and
    returns its result. Ends with stdin closed (the server stores its plans and exits)."""
    process = subprocess.Popen(
        [sys.executable, "manage.py", "mcp_stdio"],
        cwd=setup.root,
        env={**setup.env, "AVENIR_MCP_DATA_DIR": str(data)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    stdin, stdout = process.stdin, process.stdout
    if stdin is None or stdout is None:
        raise SystemExit("mcp_stdio was started without pipes.")
    asked = 0

    def ask(method: str, params: dict) -> dict:
        nonlocal asked
        asked += 1
        stdin.write(json.dumps({"jsonrpc": "2.0", "id": asked, "method": method, "params": params}).encode())
        stdin.write(b"\n")
        stdin.flush()
        while True:
            line = stdout.readline()
            if not line:
                raise SystemExit(f"mcp_stdio ended before answering {method}.")
            message = json.loads(line)
            if message.get("id") == asked:
                if "error" in message or message["result"].get("isError"):
                    raise SystemExit(f"mcp_stdio refused {method}: {message}")
                return message["result"]

    try:
        ask("initialize", _initialize_params())
        stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        stdin.flush()
        yield process, ask
    finally:
        stdin.close()
        process.wait(timeout=START_TIMEOUT)


def _initialize_params() -> dict:
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "bench-startup", "version": "1"},
    }


def _stdio_run(setup: Setup, data: Path) -> Measured:
    """One stdio session: ready is its answer to `initialize`."""
    started = time.perf_counter()
    with _stdio(setup, data) as (process, ask):
        ready = time.perf_counter() - started
        cpu = cpu_seconds(process.pid)
        ask("tools/call", {"name": DEMO_READ, "arguments": {"plan_id": setup.demo_id}})
        time.sleep(setup.settle)
        rss, peak = _memory(process.pid)
    return Measured(ready, cpu, rss, peak)


# --- runserver -------------------------------------------------------------------------------------


def _runserver(*options: str) -> Run:
    def run(setup: Setup, data: Path) -> Measured:
        """One `runserver`: ready is its answer to `initialize` at /mcp."""
        url = f"http://127.0.0.1:{setup.port}"
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{setup.port}", *options],
            cwd=setup.root,
            env={**setup.env, "AVENIR_MCP_DATA_DIR": str(data)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for_initialize(f"{url}/mcp", setup.token, process)
            ready = time.perf_counter() - started
            cpu = sum(cpu_seconds(pid) for pid in [process.pid, *_descendants(process.pid)])
            asyncio.run(_read_over_mcp(Service(url, process), setup.token, setup.demo_id))
            time.sleep(setup.settle)
            serving = [process.pid, *_descendants(process.pid)]
            rss, peak = max(_memory(pid) for pid in serving)  # the serving process holds the plans
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=START_TIMEOUT)
        return Measured(ready, cpu, rss, peak)

    return run


def _wait_for_initialize(url: str, token: str, process: subprocess.Popen) -> None:
    """Return once /mcp answers `initialize`; one client for every try, so a try costs a refused
    connection, not a new client (a new one loads the CA bundle: tens of ms of CPU a try, taken
    from the process measured on a two-core machine)."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _initialize_params()}
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    deadline = time.monotonic() + START_TIMEOUT
    with httpx2.Client(headers=headers, timeout=START_TIMEOUT) as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SystemExit("runserver exited before it answered.")
            try:
                answer = http.post(url, json=request)
            except httpx2.TransportError:
                time.sleep(0.01)  # not listening yet
                continue
            if answer.status_code != 200 or '"result"' not in answer.text:
                raise SystemExit(f"/mcp answered initialize with {answer.status_code}: {answer.text[:300]}")
            return
    raise SystemExit(f"runserver did not answer within {START_TIMEOUT:.0f} s.")


async def _read_over_mcp(service: Service, token: str, demo_id: str) -> None:
    async with mcp_client(service, token) as client:
        await call_tool(client, DEMO_READ, {"plan_id": demo_id})


def _descendants(pid: int) -> list[int]:
    """Every process started from `pid`, at any depth (the reloader's serving process)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, of in parents.items() if of == parent]
        found += children
        frontier += children
    return found


# --- figures -----------------------------------------------------------------------------------------


def _memory(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process, in MB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
    )
    return int(fields["VmRSS"].split()[0]) * 1024 / MB, int(fields["VmHWM"].split()[0]) * 1024 / MB


def _line(name: str, values: list[float], unit: str, digits: int) -> None:
    low, middle, high = min(values), statistics.median(values), max(values)
    print(f"{name}: {low:.{digits}f} / {middle:.{digits}f} / {high:.{digits}f} {unit}", flush=True)


COMMANDS: dict[str, Run] = {
    "runserver": _runserver(),
    "runserver-noreload": _runserver("--noreload"),
    "stdio": _stdio_run,
}

if __name__ == "__main__":
    main()
