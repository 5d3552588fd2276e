"""The owner's console: Django's admin site named avenir-mcp, opening on what needs the owner.

`ConsoleSite` is the admin site (`admin.site`; installed by `avenir_site.apps.AdminConfig` in
place of `django.contrib.admin`). It keeps the pending confirmations page of the site it
extends (`confirmations.admin.AdminSite`) and adds:

- its own header and titles (no page says "Django administration");
- an index (`avenir_site/console_index.html`) that starts with what waits for the owner:
  pending confirmations with their time left, operations needing attention
  (`oplog.settling.needs_attention`, linked to the operation list's filter), the hour's YNAB
  request budget and each cached plan's last sync (`ynab_client.ynab_status`);
- the sandbox's models in a section of their own, last, listed only while the sandbox is the
  YNAB this service uses (`settings.YNAB_IS_EMBEDDED_SANDBOX`): with the real YNAB they are
  neither on the index nor in the sidebar.

Dates read the same on every page (`avenir_site.formats`), and `avenir_site/console.css`
keeps every table within a 1366-pixel screen (`tests/browser/test_console_pages.py` loads
every page at 1366×768).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse

from avenir_mcp.confirmations import admin as confirmations_admin
from avenir_mcp.confirmations.views import pending_rows
from avenir_mcp.oplog import settling
from avenir_mcp.ynab_client import ynab_status

SITE_NAME = "avenir-mcp"
SANDBOX_APP_LABEL = "sandbox"


class ConsoleSite(confirmations_admin.AdminSite):
    """The admin site as the owner's console."""

    site_header = SITE_NAME
    site_title = SITE_NAME
    index_title = "What needs you"
    index_template = "avenir_site/console_index.html"

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[dict[str, Any]]:
        """The owner's sections, then the sandbox's while it serves (else not at all)."""
        app_list = super().get_app_list(request, app_label)
        owners = [app for app in app_list if app["app_label"] != SANDBOX_APP_LABEL]
        sandbox = [app for app in app_list if app["app_label"] == SANDBOX_APP_LABEL]
        return owners + sandbox if settings.YNAB_IS_EMBEDDED_SANDBOX else owners

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        """Django's index, headed by what waits for the owner."""
        attention_url = reverse("admin:oplog_operation_changelist") + "?attention=yes"
        context = {
            "pending": pending_rows(),
            "attention": settling.needs_attention().count(),
            "attention_url": attention_url,
            "ynab": ynab_status(),
            "time_zone": settings.TIME_ZONE,
            **(extra_context or {}),
        }
        return super().index(request, context)
