"""What the YNAB client sent: one row per request, from which the hourly budget is counted."""

from __future__ import annotations

from django.db import models

from avenir_mcp.ynab_client.pacing import SPENDER_LENGTH


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
    spender = models.CharField(
        max_length=SPENDER_LENGTH,
        blank=True,
        default="",
        help_text="The MCP caller whose hourly share this read counted against (e.g. token:7); "
        "empty for writes and the service's own requests.",
    )

    class Meta:
        db_table = "tools_ynabrequest"
        ordering = ["-sent_at"]
        verbose_name = "YNAB request"
        indexes = [models.Index(fields=["token_tag", "sent_at"])]
