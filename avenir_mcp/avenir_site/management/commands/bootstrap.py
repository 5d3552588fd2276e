"""`manage.py bootstrap`: what `make run` does once before serving, each step only if needed.

- Without a YNAB token, seed the sandbox's demo plan when the sandbox holds no plan.
- Create an admin login when no superuser exists, and print it once.
- Create a first MCP token when none was ever issued, and print it once with client set-ups.

`--sandbox-only` does the first step alone: what `avenir-mcp stdio` needs (avenir_mcp/avenir_site/cli.py),
whose person never reads a login or a token shown in a desktop client's log.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from avenir_mcp.sandbox.models import Plan
from avenir_mcp.tokens.client_config import client_setup, token_command
from avenir_mcp.tokens.models import McpToken

FIRST_TOKEN_NAME = "First token (make run)"


class Command(BaseCommand):
    help = "Prepare a first run: demo plan in the sandbox (when it is used), an admin login, an MCP token."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--sandbox-only", action="store_true", help="Only the demo plan: no admin login, no MCP token."
        )

    def handle(self, *args, sandbox_only: bool = False, **options) -> None:
        self._seed_sandbox()
        if sandbox_only:
            return
        self._create_admin()
        self._create_first_token()

    def _seed_sandbox(self) -> None:
        if settings.YNAB_API_KEY:
            self.stdout.write(
                "YNAB_API_KEY is set: avenir-mcp talks to YNAB itself; the sandbox stays empty."
            )
        elif Plan.objects.exists():
            self.stdout.write("Sandbox: plans already present, nothing seeded.")
        else:
            call_command("seed_demo", stdout=self.stdout)

    def _create_admin(self) -> None:
        users = get_user_model()
        if users.objects.filter(is_superuser=True).exists():
            return
        password = secrets.token_urlsafe(12)
        users.objects.create_superuser(username="admin", email="", password=password)
        base = settings.AVENIR_MCP_SELF_URL
        self.stdout.write(
            self.style.SUCCESS(
                f"Admin login created (shown once): {base}/admin/  user: admin  password: {password}"
            )
        )

    def _create_first_token(self) -> None:
        # Only when none was ever issued: a person who revoked every token meant it.
        if McpToken.objects.exists():
            return
        _token, plaintext = McpToken.issue(FIRST_TOKEN_NAME)
        self.stdout.write(
            self.style.SUCCESS(f"MCP token created (shown once; only its hash is kept): {plaintext}")
        )
        self.stdout.write(client_setup(plaintext, read_only=False))
        self.stdout.write(f"More tokens: {token_command()}, or the admin (MCP tokens).")
