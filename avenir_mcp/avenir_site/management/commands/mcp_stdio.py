"""`manage.py mcp_stdio [--read-only]`: serve avenir-mcp over stdio for desktop clients.

stdout carries the protocol and nothing else; logs go to stderr (settings.LOGGING). The
caller is the person at this machine (principal "stdio"): read-write when writes are
enabled (AVENIR_MCP_WRITE=1), unless --read-only, and offered the toolsets
AVENIR_MCP_TOOLSETS names. Before serving, operations a stopped process left pending or unknown
are settled from YNAB's own state (`oplog.settling`).

With the embedded sandbox (no YNAB_API_KEY, no AVENIR_MCP_YNAB_URL) the sandbox is served in
this process, from the same database: no web server needs to run, whatever PORT says.
"""

from __future__ import annotations

import logging

import anyio
from django.conf import settings
from django.core.asgi import get_asgi_application
from django.core.management.base import BaseCommand, CommandParser

from avenir_mcp import ynab_client
from avenir_mcp.avenir_site.startup import collection_paused
from avenir_mcp.mcp_surface.registry import toolsets_offered, writes_allowed
from avenir_mcp.mcp_surface.server import local_server
from avenir_mcp.oplog import settling
from avenir_mcp.sandbox.traffic import SandboxTraffic
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.values.toolsets import toolsets_text
from avenir_mcp.ynab_client.client import serve_in_process

logger = logging.getLogger(__name__)

STDIO_PRINCIPAL_NAME = "stdio"


class Command(BaseCommand):
    help = "Serve avenir-mcp over stdio (for clients that start the server themselves)."
    requires_system_checks = []  # nothing may reach stdout before the protocol does

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--read-only", action="store_true", help="Never list or accept write tools.")

    def handle(self, *args, read_only: bool, **options) -> None:
        principal = Principal.local(STDIO_PRINCIPAL_NAME, read_only=read_only)
        with collection_paused():  # avenir_site.startup
            server = local_server(principal)
        access = "read-write" if writes_allowed(principal) else "read-only"
        access += f"; toolsets {toolsets_text(toolsets_offered(principal)).replace(',', ', ')}"
        if settings.YNAB_IS_EMBEDDED_SANDBOX:
            serve_in_process(SandboxTraffic(get_asgi_application()))
            where = "the embedded sandbox, in this process"
        else:
            where = settings.AVENIR_MCP_YNAB_URL
        logger.info("avenir-mcp serving over stdio (%s), YNAB: %s", access, where)
        ynab_client.warm_up()  # a new session starts warm: one delta request, not an export
        settled = anyio.run(settling.settle_everything)  # what a stopped process left open, first
        logger.info("Settled %d operation(s) left pending or unknown", settled)
        try:
            server.run("stdio")
        finally:
            ynab_client.store_changed_plans()
