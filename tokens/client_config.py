"""Ready-to-paste MCP client configurations for a token (bootstrap, create_mcp_token, admin)."""

from __future__ import annotations

import json
import shlex
import sys

from django.conf import settings

SERVER_KEY = "avenir-mcp"


def mcp_url() -> str:
    return f"{settings.AVENIR_MCP_SELF_URL}/mcp"


def http_entry(token: str) -> str:
    """An `mcpServers` entry for streamable HTTP with the token (Claude Code .mcp.json, Cursor)."""
    entry = {"type": "http", "url": mcp_url(), "headers": {"Authorization": f"Bearer {token}"}}
    return json.dumps({"mcpServers": {SERVER_KEY: entry}}, indent=2)


def claude_code_command(token: str) -> str:
    header = shlex.quote(f"Authorization: Bearer {token}")
    return f"claude mcp add --transport http {SERVER_KEY} {mcp_url()} --header {header}"


def stdio_entry() -> str:
    """An `mcpServers` entry that starts avenir-mcp over stdio (Claude Desktop): no token needed."""
    manage = str(settings.BASE_DIR / "manage.py")
    # It reads the same .env and database as the web service; with the embedded sandbox it
    # serves the sandbox itself, so it works whether or not `make run` is running.
    entry = {"command": sys.executable, "args": [manage, "mcp_stdio"]}
    return json.dumps({"mcpServers": {SERVER_KEY: entry}}, indent=2)


def client_setup(token: str) -> str:
    """The three ways to connect a client, as text to print."""
    return (
        f"MCP endpoint: {mcp_url()}\n\n"
        f"Claude Code, Cursor and other streamable-HTTP clients (mcp.json):\n{http_entry(token)}\n\n"
        f"Claude Code, from a shell:\n  {claude_code_command(token)}\n\n"
        f"Claude Desktop (claude_desktop_config.json), over stdio:\n{stdio_entry()}\n"
    )
