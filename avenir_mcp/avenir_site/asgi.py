"""The ASGI application: /mcp to the MCP servers, the OAuth endpoints (`oauth.endpoints`) to
the SDK's handlers, everything else to Django.

Served by uvicorn (`make run`, `.venv/bin/python manage.py runserver`). Django refuses lifespan
events; this application answers them itself and, for the length of the lifespan, runs
the MCP session managers (without them /mcp fails with "Task group is not initialized").
Django's set-up and the servers' building run with the garbage collector paused
(`avenir_site.startup`).
"""

from __future__ import annotations

import logging
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_mcp.avenir_site.settings")

from django.core.asgi import get_asgi_application
from django.core.management.base import BaseCommand, SystemCheckError

from avenir_mcp.avenir_site.startup import collection_paused

with collection_paused():  # a process uvicorn starts sets Django up here
    django_application = get_asgi_application()  # before anything imports models

from starlette.types import ASGIApp, Receive, Scope, Send

from avenir_mcp.avenir_site.home import where_it_serves
from avenir_mcp.mcp_surface.http import McpHttpApp, is_mcp_request
from avenir_mcp.mcp_surface.server import HttpServers
from avenir_mcp.oauth.endpoints import OAuthApp, is_oauth_request
from avenir_mcp.sandbox.traffic import SandboxTraffic

# Requests to the sandbox pass through its traffic layer (request log, limit, faults).
django_with_sandbox = SandboxTraffic(django_application)

with collection_paused():
    mcp_application = McpHttpApp(HttpServers.build())
oauth_application = OAuthApp()
logger = logging.getLogger(__name__)


async def application(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await mcp_application.serve_lifespan(receive, send, started=lambda: logger.info(where_it_serves()))
    elif is_mcp_request(scope):
        await mcp_application(scope, receive, send)
    elif is_oauth_request(scope):
        await oauth_application(scope, receive, send)
    else:
        await django_with_sandbox(scope, receive, send)


def checked_application() -> ASGIApp:
    """`application`, once Django's system checks pass: what `manage.py runserver` serves (a
    uvicorn factory, called in the process that serves at each of its starts). A check that
    fails stops that process with Django's report."""
    try:
        BaseCommand().check(display_num_errors=False)
    except SystemCheckError as failed:
        sys.stderr.write(f"{failed}\n")
        raise SystemExit(1) from None
    return application
