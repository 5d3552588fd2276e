"""The operation log's rows: every write to a plan (`Operation`), and who is applying one now
(`PlanWriteLock`)."""

from __future__ import annotations

import secrets
import string
import uuid
from typing import Literal, get_args

from django.db import models
from django.utils import timezone

from avenir_mcp.tokens.models import McpToken

OPERATION_ID_ALPHABET = string.ascii_letters + string.digits
OPERATION_ID_LENGTH = 12


def new_operation_id() -> str:
    """12 random letters and digits (62^12, about 3e21): short to read out, impossible to guess."""
    return "".join(secrets.choice(OPERATION_ID_ALPHABET) for _ in range(OPERATION_ID_LENGTH))


class Operation(models.Model):
    """One write to a plan, as the operation log keeps it (docs/confirmation.md#what-is-logged).

    The row is written `pending` before the YNAB request and completed after it (`applied`,
    `failed`, or `unknown` when no answer came back), so a crash leaves a visible trace; an undo
    later turns `applied`/`unknown` into `undone`. Nobody edits it: `oplog.log` is the only
    writer and the admin is read-only. The stored subject and the undo data hold no payee
    text, memos or transaction amounts (those survive only in the preview text).
    """

    class Status(models.TextChoices):
        PENDING = "pending", "pending (sent or about to be)"
        APPLIED = "applied", "applied"
        FAILED = "failed", "failed"
        UNKNOWN = "unknown", "unknown (no answer from YNAB)"
        UNDONE = "undone", "undone"

    class ConfirmedBy(models.TextChoices):
        INPUT_REQUIRED = "input_required", "input-required answer"
        ELICITATION = "elicitation", "in-call elicitation"
        CODE = "code", "confirmation code"
        NONE = "none", "not confirmed (acts at once)"
        # An undo the owner started in the admin: agreeing on its intermediate page is the
        # person's own answer, given in the browser rather than in an MCP client.
        ADMIN = "admin", "the owner, in the admin"

    # What is still in effect in YNAB, and so what an undo may act on.
    IN_EFFECT = (Status.APPLIED, Status.UNKNOWN)

    id = models.CharField(primary_key=True, max_length=OPERATION_ID_LENGTH, default=new_operation_id)
    plan_id = models.CharField(max_length=100)
    tool = models.CharField(max_length=64)
    subject = models.JSONField(help_text="The change as stored: no payee text, memos or amounts.")
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the full subject, as confirmed.")
    preview = models.TextField(blank=True, help_text="What the person saw and agreed to.")
    confirmed_by = models.CharField(max_length=16, choices=ConfirmedBy.choices)
    token = models.ForeignKey(
        McpToken,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,  # the log outlives a deleted token: `client` keeps its name
        related_name="operations",
        help_text="Empty for stdio / local use.",
    )
    client = models.CharField(max_length=100, help_text="Token name at the time, or 'stdio'.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    undo_data = models.JSONField(null=True, blank=True, help_text="Values before and after, for undo.")
    undoable = models.BooleanField(help_text="Whether the tool can reverse this kind of change.")
    undo_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    undone_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    error = models.TextField(blank=True, help_text="For failed/unknown: what happened, what landed.")
    writer = models.CharField(
        max_length=100,
        blank=True,
        help_text="The process that sends its requests (host:pid): settling leaves a pending row alone "
        "while that process may still be at work.",
    )
    settled_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When its outcome was decided from YNAB's own state, after the request's answer was "
        "lost or the process stopped (oplog.settling).",
    )
    correlation_id = models.UUIDField(default=uuid.uuid4, editable=False, db_index=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "tools_operation"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["plan_id", "-created_at", "-id"], name="tools_op_plan_created"),
            models.Index(fields=["status", "-created_at"], name="tools_op_status_created"),
        ]
        # Viewing the log is not enough to start an undo from the admin: an undo writes to YNAB.
        permissions = [("undo_operation", "Can undo an operation from the admin (writes to YNAB)")]

    def __str__(self) -> str:
        return f"{self.id} {self.tool} ({self.status})"

    @property
    def status_name(self) -> StatusName:
        """`status` as the Literal it is (the column holds one of `Status`'s values)."""
        return _STATUS_NAMES[self.status]

    @property
    def confirmed_by_name(self) -> ConfirmedByName:
        """`confirmed_by` as the Literal it is (one of `ConfirmedBy`'s values)."""
        return _CONFIRMED_BY_NAMES[self.confirmed_by]

    @property
    def can_be_undone(self) -> bool:
        """The tool can reverse it, it is still in effect, not undone, and not itself an undo."""
        return (
            self.undoable
            and self.status in self.IN_EFFECT
            and self.undone_by_id is None
            and self.undo_of_id is None
        )


# Operation.Status and Operation.ConfirmedBy as the types the audit API and list_operations
# publish (a Literal must be spelled out; a test keeps these equal to the choices).
StatusName = Literal["pending", "applied", "failed", "unknown", "undone"]
ConfirmedByName = Literal["input_required", "elicitation", "code", "none", "admin"]
_STATUS_NAMES: dict[str, StatusName] = {name: name for name in get_args(StatusName)}
_CONFIRMED_BY_NAMES: dict[str, ConfirmedByName] = {name: name for name in get_args(ConfirmedByName)}


class PlanWriteLock(models.Model):
    """Who is applying a change to a plan right now: one row per plan while it is held
    (`oplog.plan_lock`), in the database every process of the service shares."""

    plan_id = models.CharField(max_length=100, primary_key=True)
    holder = models.CharField(
        max_length=140, help_text="The process and call holding it (host:pid:random): one writer per plan."
    )
    expires_at = models.DateTimeField(
        help_text="Renewed while the holder works; past it (or once the holder's process is gone) "
        "another writer takes the plan."
    )

    class Meta:
        db_table = "tools_planwritelock"
        verbose_name = "plan write lock"
