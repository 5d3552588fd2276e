"""`/`: a small page saying what runs where (also the admin's "View site").

It names the MCP endpoint, the admin, the API docs, the commands for a token and for stdio
(make targets, or the venv's interpreter: nothing to activate), which YNAB the
service talks to, whether write tools are on, and the toolsets offered
(docs/conventions.md#toolsets). It shows no token and no plan data, so it
needs no login.
"""

from __future__ import annotations

import shlex

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from avenir_mcp.mcp_surface.server import SERVER_TITLE, SERVER_VERSION
from avenir_mcp.tokens.client_config import stdio_command
from avenir_mcp.values.toolsets import ALL_TOOLSETS, toolsets_text


def where_it_serves() -> str:
    """One line for the log when the service starts (and after each reload)."""
    base = settings.AVENIR_MCP_SELF_URL
    writes = "on" if settings.AVENIR_MCP_WRITE else "off"
    return (
        f"avenir-mcp on {base}/ (MCP {base}/mcp, admin {base}/admin/, API docs {base}/api/docs; "
        f"writes {writes}; toolsets {toolsets_offered()})"
    )


def toolsets_offered() -> str:
    """The toolsets the setting offers, as the person reads them: "all", or their names."""
    offered = frozenset(settings.AVENIR_MCP_TOOLSETS)
    return "all" if offered == ALL_TOOLSETS else toolsets_text(offered).replace(",", ", ")


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    if settings.YNAB_IS_EMBEDDED_SANDBOX:
        ynab = "the built-in sandbox (invented demo data; set YNAB_API_KEY for your real plan)"
    elif settings.YNAB_API_KEY:
        ynab = f"YNAB at {settings.AVENIR_MCP_YNAB_URL}, with your personal access token"
    else:
        ynab = f"{settings.AVENIR_MCP_YNAB_URL} (a sandbox)"
    context = {
        "title": SERVER_TITLE,
        "version": SERVER_VERSION,
        "mcp_url": request.build_absolute_uri("/mcp"),
        "checkout": str(settings.BASE_DIR) if settings.IS_CHECKOUT else "",
        "stdio_command": shlex.join(stdio_command()),
        "ynab": ynab,
        "writes": settings.AVENIR_MCP_WRITE,
        "toolsets": toolsets_offered(),
    }
    return render(request, "avenir_site/home.html", context)
