"""`manage.py create_mcp_token NAME [--read-only] [--toolsets a,b]`: issue a bearer token for /mcp.

`make token NAME=... [READ_ONLY=1]` runs it from the checkout's venv, nothing to activate.

`--toolsets` limits what the token is offered to those toolsets (docs/conventions.md#toolsets),
within what the service offers; without it, the token is offered all of them.

The token goes to stdout, alone, on the last line, so it can be captured (`TOKEN=$(...
create_mcp_token x)`); everything meant for the person goes to stderr, before it, so in a
terminal the token is also the last line shown. It is shown this once: only its SHA-256 is kept.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from avenir_mcp.tokens.client_config import client_setup
from avenir_mcp.tokens.models import McpToken
from avenir_mcp.values.toolsets import ALL_TOOLSETS, toolsets_named, toolsets_text

_NAME_LENGTH = McpToken.NAME_LENGTH


class Command(BaseCommand):
    help = "Create an MCP bearer token; prints it once, on stdout (read-write unless --read-only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="Who will use it, e.g. 'Claude Desktop'.")
        parser.add_argument("--read-only", action="store_true", help="The token never sees write tools.")
        parser.add_argument(
            "--toolsets",
            default="",
            help="Offer the token only these toolsets, comma-separated (plans and operations always).",
        )

    def handle(self, *args, name: str, read_only: bool, toolsets: str, **options) -> None:
        name = name.strip()
        if not name or len(name) > _NAME_LENGTH:
            raise CommandError(f"Give a name of 1 to {_NAME_LENGTH} characters.")
        if McpToken.objects.filter(name=name).exists():
            raise CommandError(f"A token named {name!r} exists already; choose another name.")
        try:
            chosen = toolsets_named(toolsets)
        except ValueError as unknown:
            raise CommandError(f"--toolsets: {unknown}") from None
        stored = "" if chosen == ALL_TOOLSETS else toolsets_text(chosen)
        token, plaintext = McpToken.issue(name, read_only=read_only, toolsets=stored)
        scope = "read-only" if token.read_only else "read-write"
        offered = f"toolsets {stored.replace(',', ', ')}; " if stored else ""
        self.stderr.write(
            client_setup(plaintext, read_only=token.read_only)
            + f"\nCreated the {scope} MCP token {name!r} ({offered}shown once: only its hash is kept):"
        )
        self.stderr.flush()
        self.stdout.write(plaintext)
