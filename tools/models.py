"""Rows the MCP service keeps: who may call it, and what it asked of YNAB.

The operation log (`Operation`) joins these when writes land.
"""

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

    name = models.CharField(max_length=100, unique=True, help_text="Who uses it, e.g. 'Claude Desktop'.")
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=8, editable=False, help_text="First characters, to recognise it.")
    scope = models.CharField(max_length=12, choices=SCOPES, default=SCOPE_WRITE)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = McpTokenQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = "MCP token"

    def __str__(self) -> str:
        return self.name

    @property
    def read_only(self) -> bool:
        return self.scope == self.SCOPE_READ

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

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
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])


class YnabRequest(models.Model):
    """One request the YNAB client sent (or tried to): what the hourly budget is counted from.

    YNAB allows 200 requests per rolling hour per token; the client paces itself from these
    rows, so a restart does not forget what was already spent.
    """

    sent_at = models.DateTimeField(db_index=True)
    token_tag = models.CharField(max_length=16, help_text="A short, non-reversible tag of the YNAB token.")
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    status = models.IntegerField(null=True, blank=True, help_text="Empty when no answer came back.")
    duration_ms = models.FloatField(null=True, blank=True)
    outcome = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["-sent_at"]
        verbose_name = "YNAB request"
        indexes = [models.Index(fields=["token_tag", "sent_at"])]
