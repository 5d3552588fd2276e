"""An ASGI application served for real: uvicorn on 127.0.0.1 and a free port, in a thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

import uvicorn


class ServedApp:
    """Serves `app` (default: the project's ASGI application) until `stop()` or the `with` ends."""

    def __init__(self, app: Callable | None = None) -> None:
        if app is None:
            from avenir_mcp.avenir_site.asgi import application as app
        # IPPROTO_TCP, not 0: asyncio only sets TCP_NODELAY on sockets it knows are TCP, and
        # without it every answer waits ~40 ms for Nagle's algorithm.
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, lifespan="on", log_level="warning", timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __enter__(self) -> ServedApp:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
