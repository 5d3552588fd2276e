"""Ready-to-paste MCP client configurations (bootstrap, create_mcp_token, the admin's token page).

One text for all three (`client_setup`): the address the service uses (said to be assumed when
neither PORT nor AVENIR_MCP_SELF_URL is set), the token's configurations, then, apart, the stdio
configuration, which needs no token, with the write setting it runs with.
"""

from __future__ import annotations

import json
import shlex
import sys

from django.conf import settings

SERVER_KEY = "avenir-mcp"
WRITE_ENV = {"AVENIR_MCP_WRITE": "1"}  # stdio reads .env too; its own env turns writes on there


def mcp_url() -> str:
    return f"{settings.AVENIR_MCP_SELF_URL}/mcp"


def address_note() -> str:
    """Which address was assumed and how to give the real one, when it is a guess; else ""."""
    if not settings.AVENIR_MCP_SELF_URL_ASSUMED:
        return ""
    return (
        f"(assuming {settings.AVENIR_MCP_SELF_URL}: set PORT or AVENIR_MCP_SELF_URL "
        "if the service runs elsewhere)\n"
    )


def http_entry(token: str) -> str:
    """An `mcpServers` entry for streamable HTTP with the token (Claude Code .mcp.json, Cursor)."""
    entry = {"type": "http", "url": mcp_url(), "headers": {"Authorization": f"Bearer {token}"}}
    return json.dumps({"mcpServers": {SERVER_KEY: entry}}, indent=2)


def claude_code_command(token: str) -> str:
    header = shlex.quote(f"Authorization: Bearer {token}")
    return f"claude mcp add --transport http {SERVER_KEY} {mcp_url()} --header {header}"


def stdio_command(*, read_only: bool = False) -> list[str]:
    """The stdio server's command line: this interpreter (the venv's), so nothing needs activating;
    in a checkout its manage.py, in an installed copy the `avenir-mcp` command's module."""
    if settings.IS_CHECKOUT:
        command = [sys.executable, str(settings.BASE_DIR / "manage.py"), "mcp_stdio"]
    else:
        command = [sys.executable, "-m", "avenir_mcp.avenir_site.cli", "stdio"]
    return [*command, "--read-only"] if read_only else command


def token_command() -> str:
    """How to make another token here: a make target in a checkout, `avenir-mcp token` installed."""
    if settings.IS_CHECKOUT:
        return (
            'make token NAME="..." [READ_ONLY=1] '
            "(.venv/bin/python manage.py create_mcp_token NAME [--read-only])"
        )
    return 'avenir-mcp token "..." [--read-only]'


def stdio_entry(*, writes: bool) -> str:
    """An `mcpServers` entry that starts avenir-mcp over stdio (Claude Desktop): no token needed.

    With `writes`, its env turns write tools on whatever .env says; without, `--read-only` keeps
    it reading only, whatever .env says.
    """
    # It reads the same .env and database as the web service; with the embedded sandbox it
    # serves the sandbox itself, so it works whether or not `make run` is running.
    command, *args = stdio_command(read_only=not writes)
    entry: dict[str, object] = {"command": command, "args": args}
    if writes:
        entry["env"] = WRITE_ENV
    return json.dumps({"mcpServers": {SERVER_KEY: entry}}, indent=2)


def stdio_setup(*, writes: bool) -> str:
    """The stdio configuration with what it may do and how to change it."""
    if writes:
        access = (
            'It may propose changes ("AVENIR_MCP_WRITE": "1"), each waiting for your confirmation; '
            'for a read-only server, remove "env" and add "--read-only" to "args".'
        )
    else:
        access = (
            'It only reads ("--read-only"); to let it propose changes, remove "--read-only" from "args" '
            'and add "env": {"AVENIR_MCP_WRITE": "1"}.'
        )
    return (
        "Without a token, over stdio: Claude Desktop (claude_desktop_config.json) starts avenir-mcp "
        f"itself, so stdio needs no token.\n{stdio_entry(writes=writes)}\n{access}\n"
    )


def client_setup(token: str, *, read_only: bool) -> str:
    """The ways to connect a client, as text to print: with the token, then stdio apart."""
    writes_off = ""
    if not read_only and not settings.AVENIR_MCP_WRITE:
        writes_off = (
            "Write tools are off in this service: over HTTP this token only reads until "
            "AVENIR_MCP_WRITE=1 is set (in .env) and the service restarted.\n"
        )
    return (
        f"MCP endpoint: {mcp_url()}\n{address_note()}{writes_off}\n"
        "With this token, over streamable HTTP:\n"
        f"Claude Code, Cursor and other clients (mcp.json):\n{http_entry(token)}\n"
        f"Claude Code, from a shell:\n  {claude_code_command(token)}\n\n"
        f"{stdio_setup(writes=not read_only)}"
    )
