"""The YNAB request log in the admin, with the hourly budget and the plan cache on top.

Rows are written only by the YNAB client (`ynab_client.pacing`), one per attempt; no one
adds, changes or deletes them here. The list page also shows what `ynab_client.ynab_status`
reports: requests in the last hour against the limit, a pause after a 429, and each cached
plan (id, name, server_knowledge, when loaded and refreshed, entity counts).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from avenir_mcp.ynab_client import ynab_status
from avenir_mcp.ynab_requests.models import YnabRequest


@admin.register(YnabRequest)
class YnabRequestAdmin(admin.ModelAdmin):
    # The token's tag is a filter and on the row's page: the list keeps to what fits 1366 pixels.
    list_display = ["sent_at", "method", "path", "status", "outcome", "duration_ms"]
    list_filter = ["method", "status", "outcome", "token_tag", "sent_at"]
    search_fields = ["path", "outcome"]
    date_hierarchy = "sent_at"
    list_per_page = 100
    show_full_result_count = False  # counting a long log on every page is wasted work
    change_list_template = "admin/ynab_requests/ynabrequest/change_list.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: YnabRequest | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: YnabRequest | None = None) -> bool:
        return False

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        return super().changelist_view(request, {**(extra_context or {}), "ynab": ynab_status()})
