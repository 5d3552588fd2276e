"""The operation log in the admin: an audit trail nobody can edit.

No one adds, changes or deletes an operation here, superusers included: rows are written
only by `oplog.log`, as writes happen. Staff with the view permission (the owner is a
superuser) list them with filters and search, and open one to see every field.

Operations that need attention (outcome still open, or a half move whose source changed before
settling could put it back: `oplog.settling.needs_attention`) are counted at the top of the
list, with a link to the "needs attention" filter.

The one thing the owner can start here is an undo: an operation that can be undone shows
an "Undo…" button (to users with the `oplog.undo_operation` permission; superusers have it)
leading to `<id>/undo/`, an intermediate page with what the undo would restore now and what
it leaves alone (computed on a fresh read of the plan). Posting that page is the owner's
agreement: the undo runs with the same code as the `undo_operation` tool and is logged with
`confirmed_by` "admin" (see `oplog.undo_admin`).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from asgiref.sync import async_to_sync
from django.contrib import admin, messages
from django.contrib.admin.utils import flatten_fieldsets, unquote
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from avenir_mcp.oplog import log, settling
from avenir_mcp.oplog.described import change_rows, undo_state, undo_words
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.undo_admin import Proposal, propose, undo_agreed
from avenir_mcp.ynab_client import kept_plan, plan_label, plan_names

UNDO_PERMISSION = "oplog.undo_operation"


class PlanFilter(admin.SimpleListFilter):
    """Filter by plan, listed by name (the plans the log holds)."""

    title = "plan"
    parameter_name = "plan_id"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        names = plan_names()
        ids = Operation.objects.order_by().values_list("plan_id", flat=True).distinct()
        return sorted(((plan_id, plan_label(plan_id, names)) for plan_id in ids), key=lambda pair: pair[1])

    def queryset(self, request: HttpRequest, queryset: QuerySet[Operation]) -> QuerySet[Operation]:
        return queryset.filter(plan_id=self.value()) if self.value() else queryset


class NeedsAttention(admin.SimpleListFilter):
    """Operations whose outcome is open or left something to do (`oplog.settling.needs_attention`)."""

    title = "needs attention"
    parameter_name = "attention"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "needs attention")]

    def queryset(self, request: HttpRequest, queryset: Any) -> Any:
        if self.value() == "yes":
            return queryset.filter(pk__in=settling.needs_attention().values("pk"))
        return queryset


@admin.register(Operation)
class OperationAdmin(admin.ModelAdmin):
    # Few, narrow columns so the summary stays readable on a 1366-pixel screen beside the
    # sidebar and the filters; the tool, who confirmed and which client are filters and on the
    # detail page (the summary already says what was done).
    list_display = [
        "id",
        "when",
        "plan_id",  # replaced per request by a column of plan names (get_list_display)
        "short_summary",
        "status",
        "undo",
    ]
    list_filter = [NeedsAttention, "status", "tool", "confirmed_by", "created_at", PlanFilter]
    search_fields = ["id", "plan_id", "tool", "preview"]
    date_hierarchy = "created_at"
    list_per_page = 100
    list_select_related = ["undo_of"]  # an undo's summary reads the change it undid

    class Media:
        css = {"all": ["oplog/operations.css"]}

    show_full_result_count = False  # counting a long log on every page is wasted work
    # What the person reads; the before → after table, the undo state and the technical
    # details follow them (change_form.html, from change_view's context).
    fieldsets = [
        (None, {"fields": ["id", "plan", "tool", "status"]}),
        ("Who and when", {"fields": ["client", "confirmed_by", "created_at", "completed_at", "settled_at"]}),
        ("What was asked", {"fields": ["preview_text"]}),
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
        return flatten_fieldsets(self.fieldsets)

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        """The log, headed by how many operations need attention (a link to them) when any do."""
        count = settling.needs_attention().count()
        if count:
            link = format_html(
                '<a href="?attention=yes">{} operation(s) need attention</a>: their outcome is still open '
                "(pending or unknown; settling keeps reading YNAB) or left an amount to set in YNAB.",
                count,
            )
            messages.warning(request, link)
        return super().changelist_view(request, extra_context)

    # --- the undo hook ----------------------------------------------------------------------

    def undo_urls(self) -> list[URLPattern]:
        """`<id>/undo/`: the intermediate page (GET) and the owner's agreement (POST)."""
        view = self.admin_site.admin_view(self.undo_view)
        return [path("<path:object_id>/undo/", view, name="oplog_operation_undo")]

    def get_urls(self) -> list[Any]:
        return [*self.undo_urls(), *super().get_urls()]

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict | None = None
    ) -> HttpResponse:
        op = self.get_object(request, unquote(object_id))
        context = dict(extra_context or {})
        if op is not None:
            undo_url = None
            if op.can_be_undone and request.user.has_perm(UNDO_PERMISSION):
                undo_url = reverse("admin:oplog_operation_undo", args=[op.pk])
            technical = [
                ("id", op.pk),
                ("fingerprint", op.fingerprint),
                ("writer", op.writer or "none"),
                ("correlation id", str(op.correlation_id)),
                ("MCP token", str(op.token) if op.token is not None else "none (stdio or the admin)"),
                ("subject (stored)", _pretty_json(op.subject)),
                ("undo data", _pretty_json(op.undo_data)),
            ]
            context.update(
                undo_url=undo_url,
                undo=undo_state(op),
                change_rows=change_rows(op, kept_plan(op.plan_id)),
                technical=technical,
            )
        return super().change_view(request, object_id, form_url, context)

    def undo_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """GET: what undoing the operation would do now. POST: do it (the owner agreed)."""
        op = self.get_object(request, unquote(object_id))
        if op is None:
            raise Http404(f"No operation {object_id!r}.")
        if not (self.has_view_permission(request, op) and request.user.has_perm(UNDO_PERMISSION)):
            raise PermissionDenied
        if request.method != "POST":
            return self._undo_page(request, async_to_sync(propose)(op))
        digest, username = request.POST.get("digest", ""), request.user.get_username()
        outcome = async_to_sync(undo_agreed)(op, digest=digest, username=username)
        if outcome.applied:
            messages.success(request, outcome.message)
            return redirect("admin:oplog_operation_change", outcome.undo_id)
        if outcome.proposal is not None:
            return self._undo_page(request, outcome.proposal, warning=outcome.message)
        messages.error(request, outcome.message)
        return redirect("admin:oplog_operation_change", op.pk)

    def _undo_page(
        self, request: HttpRequest, proposal: Proposal, warning: str | None = None
    ) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Undo operation {proposal.op.pk}?",
            "op": proposal.op,
            "proposal": proposal,
            "warning": warning,
        }
        return TemplateResponse(request, "admin/oplog/operation/undo.html", context)

    # --- how fields read ----------------------------------------------------------------------

    def get_list_display(self, request: HttpRequest) -> list[Any]:
        """The plan column shows names, looked up once per page (`plan_names`)."""
        names = plan_names()

        @admin.display(description="plan", ordering="plan_id")
        def plan(op: Operation) -> str:
            return format_html('<span title="{}">{}</span>', op.plan_id, plan_label(op.plan_id, names))

        return [plan if column == "plan_id" else column for column in self.list_display]

    @admin.display(description="when", ordering="created_at")
    def when(self, op: Operation) -> datetime:
        return op.created_at  # the admin's date-time format, in the server's time zone

    @admin.display(description="plan")
    def plan(self, op: Operation) -> str:
        return f"{plan_label(op.plan_id, plan_names())} ({op.plan_id})"

    @admin.display(description="summary")
    def short_summary(self, op: Operation) -> str:
        """The preview's question and, below it, the first line of the change with its amounts
        in the plan's currency format (`oplog.described.change_rows`)."""
        rows = change_rows(op, kept_plan(op.plan_id))
        if not rows:
            return log.summary(op)
        first, more = rows[0], len(rows) - 1
        return format_html(
            '{}<br><span class="change">{}{}: {} → {}{}</span>',
            log.summary(op),
            f"{first.item}, " if first.item else "",
            first.field,
            first.before,
            first.after,
            f" (and {more} more)" if more else "",
        )

    @admin.display(description="undo")
    def undo(self, op: Operation) -> str:
        return undo_words(op)

    @admin.display(description="preview")
    def preview_text(self, op: Operation) -> str:
        return format_html('<pre style="white-space: pre-wrap">{}</pre>', op.preview)


def _pretty_json(value: Any) -> str:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    return format_html("<pre>{}</pre>", text)
