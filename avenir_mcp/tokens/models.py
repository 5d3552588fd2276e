"""MCP tokens: who may call /mcp with a static bearer token (docs/architecture.md#the-parts)."""

from __future__ import annotations

import hashlib
import secrets

from django.db import models
from django.utils import timezone

from avenir_mcp.values.toolsets import stored_toolsets

TOOLSETS_HELP = (
    "The toolsets offered to it, comma-separated (docs/conventions.md#toolsets); empty: all the "
    "service offers. Plans and operations are always offered."
)
TOOLSETS_LENGTH = 200


def hash_token(token: str) -> str:
    """The only form in which an MCP token is stored: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


class McpTokenQuerySet(models.QuerySet):
    def active(self) -> McpTokenQuerySet:
        return self.filter(revoked_at__isnull=True)


class McpToken(models.Model):
    """A bearer token for /mcp. Shown once when issued; only its hash is kept."""

    SCOPE_READ = "read"
    SCOPE_WRITE = "read_write"
    SCOPES = [(SCOPE_READ, "read-only"), (SCOPE_WRITE, "read and write")]
    NAME_LENGTH = 100

    name = models.CharField(
        max_length=NAME_LENGTH, unique=True, help_text="Who uses it, e.g. 'Claude Desktop'."
    )
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=8, editable=False, help_text="First characters, to recognise it.")
    scope = models.CharField(max_length=12, choices=SCOPES, default=SCOPE_WRITE)
    toolsets = models.CharField(max_length=TOOLSETS_LENGTH, blank=True, default="", help_text=TOOLSETS_HELP)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = McpTokenQuerySet.as_manager()

    class Meta:
        db_table = "tools_mcptoken"
        ordering = ["name"]
        verbose_name = "MCP token"

    def __str__(self) -> str:
        return self.name

    @property
    def read_only(self) -> bool:
        return self.scope == self.SCOPE_READ

    @property
    def chosen_toolsets(self) -> frozenset[str] | None:
        """The toolsets it is limited to; None: not limited (docs/conventions.md#toolsets)."""
        return stored_toolsets(self.toolsets)

    @classmethod
    def issue(cls, name: str, *, read_only: bool = False, toolsets: str = "") -> tuple[McpToken, str]:
        """Create a token; returns the row and the plaintext, which is never stored.

        `toolsets`: as stored (`values.toolsets.toolsets_text`), empty for all."""
        plaintext = "avm_" + secrets.token_urlsafe(32)
        token = cls.objects.create(
            name=name,
            token_hash=hash_token(plaintext),
            prefix=plaintext[:8],
            scope=cls.SCOPE_READ if read_only else cls.SCOPE_WRITE,
            toolsets=toolsets,
        )
        return token, plaintext

    def revoke(self) -> None:
        """Refuse the token from now on; a token revoked already keeps the time it was."""
        McpToken.objects.filter(pk=self.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.refresh_from_db(fields=["revoked_at"])
