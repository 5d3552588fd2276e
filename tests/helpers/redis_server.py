"""A throwaway Redis for the tests of shared state (avenir_mcp/shared_state/): Debian's `redis-server`.

`.ci/run` starts one and gives its address as `AVENIR_TEST_REDIS_URL`; without it (a developer's
run), each pytest process starts its own on a free port, in a folder of this run, with nothing
saved to disk. Tests never share keys: each takes a key prefix of its own (`shared_store`
fixture in tests/conftest.py), so none needs the store emptied.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

REDIS_SERVER = "redis-server"
STARTING_SECONDS = 60


@dataclass
class RedisServer:
    url: str
    process: subprocess.Popen[bytes] | None = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=STARTING_SECONDS)


def given_or_started(folder: Path) -> RedisServer:
    """CI's Redis (AVENIR_TEST_REDIS_URL), else one started here, answering PING."""
    given = os.environ.get("AVENIR_TEST_REDIS_URL", "").strip()
    if given:
        return RedisServer(given)
    binary = shutil.which(REDIS_SERVER) or "/usr/bin/redis-server"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    arguments = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(
        [*arguments, "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    server = RedisServer(f"redis://127.0.0.1:{port}/0", process)
    deadline = time.monotonic() + STARTING_SECONDS
    while not _answers(port):
        if process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"redis-server did not start on port {port} ({binary})")
        time.sleep(0.02)  # waiting for an event (the port answering), not pacing a test
    return server


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False
