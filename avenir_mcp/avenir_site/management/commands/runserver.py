"""`manage.py runserver`: serve the ASGI application under uvicorn.

Django's own runserver speaks WSGI and would leave /mcp (an ASGI app with a lifespan) out;
this one serves everything `avenir_site.asgi:application` routes, with auto-reload.

- The port served is the service's own address (unless AVENIR_MCP_SELF_URL is given), so
  `runserver 9000` reaches its own sandbox on 9000, in this process and in the reloader's.
- The reloader watches the project's own packages only (not .venv, tests or the database).
  Its supervising process does not set Django up (`manage.py` runs this command there before
  Django's command line would): it reads the settings, watches and starts the process that
  serves, which sets Django up once. Setting up in both would double the time to the first
  answer (docs/architecture.md#figures).
- Django's system checks run in the process that serves, before it serves, at each start
  (`avenir_site.asgi.checked_application`); one that fails stops that process with Django's
  report, and under the reloader the next change starts it again.
- Ctrl+C stops within a few seconds even with MCP streams open (`SHUTDOWN_GRACE_SECONDS`).
- `--workers N` serves from N processes on one port, without the reloader (uvicorn does one or
  the other). N > 1 needs `REDIS_URL` (docs/architecture.md#several-workers): without it each
  worker would keep its own confirmations, YNAB hour and plans, and the state would split.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import uvicorn
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

APPLICATION = "avenir_mcp.avenir_site.asgi:checked_application"  # a factory, called where it serves

_ADDRPORT = re.compile(r"^(?:(?P<host>\[[0-9a-fA-F:]+\]|[\w.-]+):)?(?P<port>\d+)$")
SHUTDOWN_GRACE_SECONDS = 3  # then requests still running are cancelled
SPLIT_STATE = (
    "--workers above 1 needs REDIS_URL: without it each worker keeps its own confirmations, "
    "YNAB hour and plans, and the state would split."
)


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


def check_workers(workers: int) -> None:
    """Refuse a number of workers the service cannot serve with as one."""
    if workers < 1:
        raise CommandError("--workers must be 1 or more.")
    if workers > 1 and not settings.REDIS_URL:
        raise CommandError(SPLIT_STATE)


def serve_on(port: int) -> None:
    """Make `port` the service's own address, here and in the processes started from here."""
    os.environ["PORT"] = str(port)  # the reloader's worker reads its settings afresh
    settings.PORT = port
    if not settings.AVENIR_MCP_SELF_URL_GIVEN:
        settings.AVENIR_MCP_SELF_URL = f"http://127.0.0.1:{port}"
        settings.AVENIR_MCP_SELF_URL_ASSUMED = False
        if settings.YNAB_IS_EMBEDDED_SANDBOX:
            settings.AVENIR_MCP_YNAB_URL = f"{settings.AVENIR_MCP_SELF_URL}/sandbox/v1"


class Command(BaseCommand):
    help = "Serve avenir-mcp (admin, /api, /sandbox and /mcp) under uvicorn, reloading on code changes."
    requires_system_checks: list[str] = []  # run where it serves (APPLICATION)

    def add_arguments(self, parser) -> None:
        parser.add_argument("addrport", nargs="?", help="Optional port number, or ipaddr:port.")
        parser.add_argument(
            "--noreload", action="store_false", dest="use_reloader", help="Do not reload on code changes."
        )
        parser.add_argument(
            "--workers", type=int, default=1, help="Processes serving (above 1: needs REDIS_URL, no reload)."
        )

    def handle(
        self, *args, addrport: str | None = None, use_reloader: bool = True, workers: int = 1, **options
    ) -> None:
        host, port = address_served(addrport)
        check_workers(workers)
        use_reloader = use_reloader and workers == 1
        serve_on(port)
        uvicorn.run(
            APPLICATION,
            factory=True,
            host=host.strip("[]"),
            port=port,
            reload=use_reloader,
            reload_dirs=[str(path) for path in watched_dirs()] if use_reloader else None,
            workers=workers,
            lifespan="on",
            log_level="info",
            timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
        )
