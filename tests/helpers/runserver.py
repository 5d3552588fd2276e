"""`manage.py runserver` (what `make run` starts) as a real process of its own, on this run's
database and data folder, and every line it printed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from tests.helpers.processes import PROCESS_SECONDS, this_runs_database_url


class Served:
    """The process and every line it printed so far.

    `env` adds to (or overrides) the environment it starts with; `umask` is its umask (-1: this
    process's); `reload` False starts it with `--noreload`; `project` is the folder it runs
    from (`manage.py` there; the checkout unless given)."""

    def __init__(
        self,
        port: int,
        *,
        env: dict[str, str] | None = None,
        umask: int = -1,
        reload: bool = True,
        project: Path | None = None,
    ) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": this_runs_database_url(),
            "PORT": "",  # the port comes from the command line, as `make run` gives it
            "AVENIR_MCP_SELF_URL": "",
            "AVENIR_MCP_YNAB_URL": "",
            "YNAB_API_KEY": "",
            "AVENIR_MCP_DATA_DIR": str(settings.AVENIR_MCP_DATA_DIR),  # the run's own, not .local
            **(env or {}),
        }
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "runserver",
                f"127.0.0.1:{port}",
                *([] if reload else ["--noreload"]),
            ],
            cwd=project or settings.BASE_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group, as a terminal's Ctrl+C reaches it
            umask=umask,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, *, count: int = 1) -> list[str]:
        """The lines matching `pattern`, once there are `count` of them (a deadline only a stuck
        process reaches: `PROCESS_SECONDS`)."""
        deadline = time.monotonic() + PROCESS_SECONDS
        while time.monotonic() < deadline and self.process.poll() is None:
            found = [line for line in self.lines if re.search(pattern, line)]
            if len(found) >= count:
                return found
            time.sleep(0.1)
        raise AssertionError(f"no {count}× {pattern!r} in:\n" + "\n".join(self.lines))

    def ctrl_c(self) -> float:
        """Seconds from Ctrl+C to the end of every process of the group."""
        started = time.monotonic()
        os.killpg(self.process.pid, signal.SIGINT)
        self.process.wait(timeout=PROCESS_SECONDS)
        return time.monotonic() - started

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@contextmanager
def all_serving(processes: list[Served]) -> Iterator[list[Served]]:
    """`processes` once each has started serving (several workers of one service); every one is
    stopped when the block ends, however it ends."""
    try:
        for process in processes:
            process.wait_for("Application startup complete")
        yield processes
    finally:
        for process in processes:
            process.stop()
