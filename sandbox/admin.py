"""Admin of the sandbox: its YNAB data, and its traffic (request log, injected faults)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from sandbox.faults import check_fault
from sandbox.models import Fault, RequestLogEntry

# --- Traffic: the request log (read-only) and injected faults (sandbox.traffic) ----------------


@admin.register(RequestLogEntry)
class RequestLogEntryAdmin(admin.ModelAdmin):
    """What the sandbox served, newest first; nobody edits history."""

    list_display = (
        "id",
        "created_at",
        "method",
        "path",
        "query",
        "status",
        "duration_ms",
        "token_tag",
        "fault",
    )
    list_filter = ("method", "status")
    search_fields = ("path",)
    list_per_page = 100
    show_full_result_count = False  # no COUNT(*) over a long log on every page

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: RequestLogEntry | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: RequestLogEntry | None = None) -> bool:
        return False


class FaultForm(forms.ModelForm):
    """A fault as `sandbox.faults.inject` would accept it."""

    class Meta:
        model = Fault
        fields = ["kind", "method", "path_pattern", "status", "delay_ms", "remaining"]

    def clean_method(self) -> str:
        return self.cleaned_data["method"].upper()

    def clean(self) -> dict:
        cleaned = super().clean()
        if not self.errors:
            check_fault(Fault(**{name: cleaned.get(name) for name in self.Meta.fields}))
        return cleaned


@admin.register(Fault)
class FaultAdmin(admin.ModelAdmin):
    """Faults for demos: the next N matching API requests fail, wait, or lose their answer."""

    form = FaultForm
    list_display = ("id", "kind", "method", "path_pattern", "status", "delay_ms", "remaining", "created_at")
    list_filter = ("kind",)
