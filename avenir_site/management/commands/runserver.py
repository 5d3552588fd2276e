"""`manage.py runserver`: serve the ASGI application under uvicorn.

Django's own runserver speaks WSGI and would leave /mcp (an ASGI app with a lifespan) out;
this one serves everything `avenir_site.asgi:application` routes, with auto-reload.
"""

from __future__ import annotations

import re

import uvicorn
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

_ADDRPORT = re.compile(r"^(?:(?P<host>\[[0-9a-fA-F:]+\]|[\w.-]+):)?(?P<port>\d+)$")


class Command(BaseCommand):
    help = "Serve avenir-mcp (admin, /api, /sandbox and /mcp) under uvicorn, reloading on code changes."

    def add_arguments(self, parser) -> None:
        parser.add_argument("addrport", nargs="?", help="Optional port number, or ipaddr:port.")
        parser.add_argument(
            "--noreload", action="store_false", dest="use_reloader", help="Do not reload on code changes."
        )

    def handle(self, *args, addrport: str | None = None, use_reloader: bool = True, **options) -> None:
        host, port = self._parse_addrport(addrport)
        self.stdout.write(f"avenir-mcp on http://{host}:{port}/ (admin /admin/, API /api/docs, MCP /mcp)")
        uvicorn.run(
            "avenir_site.asgi:application",
            host=host.strip("[]"),
            port=port,
            reload=use_reloader,
            reload_dirs=[str(settings.BASE_DIR)] if use_reloader else None,
            lifespan="on",
            log_level="info",
        )

    @staticmethod
    def _parse_addrport(addrport: str | None) -> tuple[str, int]:
        if not addrport:
            return "127.0.0.1", settings.PORT
        match = _ADDRPORT.match(addrport)
        if match is None:
            raise CommandError(f"{addrport!r} is not a port or address:port.")
        return match["host"] or "127.0.0.1", int(match["port"])
