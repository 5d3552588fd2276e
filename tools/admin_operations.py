"""The operation log in the admin: an audit trail nobody can edit.

No one adds, changes or deletes an operation here, superusers included: rows are written
only by `tools.oplog`, as writes happen. Staff with the view permission (the owner is a
superuser) list them with filters and search, and open one to see every field.

Undo from the admin (issue 5) plugs in through `OperationAdmin.undo_urls`: return a URL
such as `<id>/undo/` whose GET shows the undo's preview on an intermediate page and whose
POST (the owner's agreement) runs the undo; offer it only when `Operation.can_be_undone`.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import URLPattern
from django.utils.html import format_html

from tools import oplog
from tools.models import Operation


@admin.register(Operation)
class OperationAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "created_at",
        "plan_id",
        "tool",
        "status",
        "confirmed_by",
        "client",
        "short_summary",
        "undo_possible",
    ]
    list_filter = ["status", "tool", "confirmed_by", "created_at", "plan_id"]
    search_fields = ["id", "plan_id", "tool", "preview"]
    date_hierarchy = "created_at"
    list_per_page = 100
    show_full_result_count = False  # counting a long log on every page is wasted work
    fieldsets = [
        (None, {"fields": ["id", "plan_id", "tool", "status", "short_summary", "undo_possible"]}),
        ("Who and how", {"fields": ["client", "token", "confirmed_by", "correlation_id"]}),
        ("When", {"fields": ["created_at", "completed_at"]}),
        ("What was asked", {"fields": ["preview_text", "subject_json", "fingerprint"]}),
        ("Undo", {"fields": ["undoable", "undo_of", "undone_by", "undo_data_json"]}),
        ("Outcome", {"fields": ["error"]}),
    ]

    # --- read-only, for everyone ------------------------------------------------------------

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Operation | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Operation | None = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Operation | None = None) -> list[str]:
        return [field for fieldset in self.fieldsets for field in fieldset[1]["fields"]]

    # --- the undo hook ----------------------------------------------------------------------

    def undo_urls(self) -> list[URLPattern]:
        """Extra admin URLs for starting an undo (none until undo exists); see the module doc."""
        return []

    def get_urls(self) -> list[Any]:
        return [*self.undo_urls(), *super().get_urls()]

    # --- how fields read ----------------------------------------------------------------------

    @admin.display(description="summary")
    def short_summary(self, op: Operation) -> str:
        return oplog.summary(op)

    @admin.display(description="can be undone now", boolean=True)
    def undo_possible(self, op: Operation) -> bool:
        return op.can_be_undone

    @admin.display(description="preview")
    def preview_text(self, op: Operation) -> str:
        return format_html('<pre style="white-space: pre-wrap">{}</pre>', op.preview)

    @admin.display(description="subject (stored)")
    def subject_json(self, op: Operation) -> str:
        return _pretty_json(op.subject)

    @admin.display(description="undo data")
    def undo_data_json(self, op: Operation) -> str:
        return _pretty_json(op.undo_data)


def _pretty_json(value: Any) -> str:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    return format_html("<pre>{}</pre>", text)
