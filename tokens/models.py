"""MCP tokens: who may call /mcp with a static bearer token (docs/architecture.md#the-parts)."""

from __future__ import annotations

import hashlib
import secrets

from django.db import models
from django.utils import timezone


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

    @classmethod
    def issue(cls, name: str, *, read_only: bool = False) -> tuple[McpToken, str]:
        """Create a token; returns the row and the plaintext, which is never stored."""
        plaintext = "avm_" + secrets.token_urlsafe(32)
        token = cls.objects.create(
            name=name,
            token_hash=hash_token(plaintext),
            prefix=plaintext[:8],
            scope=cls.SCOPE_READ if read_only else cls.SCOPE_WRITE,
        )
        return token, plaintext

    def revoke(self) -> None:
        """Refuse the token from now on; a token revoked already keeps the time it was."""
        McpToken.objects.filter(pk=self.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.refresh_from_db(fields=["revoked_at"])
