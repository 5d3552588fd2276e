"""`manage.py runserver`: serve the ASGI application under uvicorn.

Django's own runserver speaks WSGI and would leave /mcp (an ASGI app with a lifespan) out;
this one serves everything `avenir_site.asgi:application` routes, with auto-reload.

- The port served is the service's own address (unless AVENIR_MCP_SELF_URL is given), so
  `runserver 9000` reaches its own sandbox on 9000, in this process and in the reloader's.
- Reloading: the process started serves at once (Django is set up in it already), watching
  the project's own packages (not .venv, tests or the database). At the first change it
  stops serving, as Ctrl+C stops it, and from then on supervises as uvicorn's reloader does:
  a new process serves the code as it is now, started again at each change, and code that
  fails to start waits for the next change. The port stays open throughout, so a request
  made meanwhile waits for the new process instead of failing. (A supervising process from
  the start would set Django up twice before the first answer, once to supervise and once
  to serve: about twice the time to start.)
- Ctrl+C stops within a few seconds even with MCP streams open (`SHUTDOWN_GRACE_SECONDS`).
- Django's system checks run before serving, in the process that serves.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from uvicorn.supervisors import ChangeReload

logger = logging.getLogger(__name__)

APPLICATION = "avenir_site.asgi:application"
_ADDRPORT = re.compile(r"^(?:(?P<host>\[[0-9a-fA-F:]+\]|[\w.-]+):)?(?P<port>\d+)$")
SHUTDOWN_GRACE_SECONDS = 3  # then requests still running are cancelled
WATCH_SECONDS = 0.25  # how often the files are looked at (uvicorn's reloader's pace)


def watched_dirs() -> list[Path]:
    """The project's packages: each folder of the checkout that is a Python package, but the tests."""
    packages = (init.parent for init in sorted(Path(settings.BASE_DIR).glob("*/__init__.py")))
    return [package for package in packages if package.name != "tests"]


def address_served(addrport: str | None) -> tuple[str, int]:
    """(host, port) from the command line's `[address:]port`; PORT on 127.0.0.1 when not given."""
    if not addrport:
        return "127.0.0.1", settings.PORT
    match = _ADDRPORT.match(addrport)
    if match is None:
        raise CommandError(f"{addrport!r} is not a port or address:port.")
    return match["host"] or "127.0.0.1", int(match["port"])


def serve_on(port: int) -> None:
    """Make `port` the service's own address, here and in the processes started from here."""
    os.environ["PORT"] = str(port)  # the reloader's worker reads its settings afresh
    settings.PORT = port
    if not settings.AVENIR_MCP_SELF_URL_GIVEN:
        settings.AVENIR_MCP_SELF_URL = f"http://127.0.0.1:{port}"
        if settings.YNAB_IS_EMBEDDED_SANDBOX:
            settings.AVENIR_MCP_YNAB_URL = f"{settings.AVENIR_MCP_SELF_URL}/sandbox/v1"


class Command(BaseCommand):
    help = "Serve avenir-mcp (admin, /api, /sandbox and /mcp) under uvicorn, reloading on code changes."
    requires_system_checks: list[str] = []  # run by `handle`, once the address is known to be valid

    def add_arguments(self, parser) -> None:
        parser.add_argument("addrport", nargs="?", help="Optional port number, or ipaddr:port.")
        parser.add_argument(
            "--noreload", action="store_false", dest="use_reloader", help="Do not reload on code changes."
        )

    def handle(self, *args, addrport: str | None = None, use_reloader: bool = True, **options) -> None:
        host, port = address_served(addrport)
        serve_on(port)
        self.check(display_num_errors=False)
        host = host.strip("[]")
        if not use_reloader:
            uvicorn.run(APPLICATION, **_serving(host, port))
            return
        listening = _listening_socket(host, port)
        if _serve_until_a_change(uvicorn.Config(APPLICATION, **_serving(host, port)), listening):
            reloading = uvicorn.Config(
                APPLICATION,
                **_serving(host, port),
                reload=True,
                reload_dirs=[str(path) for path in watched_dirs()],
                reload_delay=WATCH_SECONDS,
            )
            ChangeReload(reloading, target=uvicorn.Server(reloading).run, sockets=[listening]).run()


def _serving(host: str, port: int) -> dict[str, Any]:
    """uvicorn's settings, alike in every process that serves."""
    return {
        "host": host,
        "port": port,
        "lifespan": "on",
        "log_level": "info",
        "timeout_graceful_shutdown": SHUTDOWN_GRACE_SECONDS,
    }


def _listening_socket(host: str, port: int) -> socket.socket:
    """The port, bound once for this process and the ones it starts after a change."""
    listening = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        raise CommandError(f"Cannot serve {host}:{port}: {error.strerror}.") from None
    listening.set_inheritable(True)
    return listening


def _serve_until_a_change(config: uvicorn.Config, listening: socket.socket) -> bool:
    """Serve in this process until a watched file changes (True) or Ctrl+C (False)."""
    dirs = watched_dirs()
    logger.info("Will watch for changes in these directories: %s", sorted(str(path) for path in dirs))
    server = uvicorn.Server(config)
    changed = threading.Event()
    seen = _modified_times(dirs)
    threading.Thread(
        target=_stop_at_a_change, args=(dirs, seen, server, changed), name="runserver-watch", daemon=True
    ).start()
    try:
        # uvicorn closes the sockets it serves at shutdown: it gets a copy, the port stays open.
        server.run(sockets=[listening.dup()])
    except KeyboardInterrupt:  # uvicorn stopped gracefully, then passes the Ctrl+C on
        return False
    except SystemExit:  # uvicorn said why
        logger.error("avenir-mcp did not start; it starts again when a watched file changes.")
    except Exception:
        logger.exception("avenir-mcp did not start; it starts again when a watched file changes.")
    try:
        changed.wait()
    except KeyboardInterrupt:
        return False
    return True


def _modified_times(dirs: list[Path]) -> dict[Path, int]:
    """Each code file under `dirs` and when it was last modified (ns)."""
    times = {}
    for folder in dirs:
        for path in folder.rglob("*.py"):
            with contextlib.suppress(OSError):  # gone meanwhile, or an editor's lock file
                times[path] = path.stat().st_mtime_ns
    return times


def _stop_at_a_change(
    dirs: list[Path], seen: dict[Path, int], server: uvicorn.Server, changed: threading.Event
) -> None:
    """Look at the files every `WATCH_SECONDS`; when one of them changed, stop `server` as Ctrl+C
    would (a new file alone changes nothing, as with uvicorn's reloader)."""
    while True:
        time.sleep(WATCH_SECONDS)
        touched = [path for path, at in _modified_times(dirs).items() if seen.get(path, at) != at]
        if touched:
            logger.warning("%s changed: serving the code as it is now.", touched[0])
            changed.set()
            server.should_exit = True
            return
