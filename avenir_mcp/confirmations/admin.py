"""The admin site, with a "Pending confirmations" page listed on its index.

Pending confirmations are not database rows (they live in the server's memory, or in Redis
with `REDIS_URL`: `confirmations.codes`), so there is no model to register. Instead the
admin site extends `AdminSite` below (the owner's console, `avenir_site.console.ConsoleSite`,
is the admin site): one extra URL, wrapped in `admin_view` (staff login, CSRF, no caching),
and one extra entry in its app list, so the page appears on the index and in the sidebar
like any other admin page.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import URLPattern, URLResolver, path, reverse

from avenir_mcp.confirmations import views

APP_LABEL = "confirmations"


class AdminSite(admin.AdminSite):
    """Django's admin site and the pending confirmations page (the console extends it)."""

    # The login in the OAuth sign-in's style, naming the client when the owner comes from a
    # consent page (oauth.consent.consent_asked).
    login_template = "oauth/sign_in.html"

    def get_urls(self) -> list[URLResolver | URLPattern]:
        """The admin's URLs and the page's, in front."""
        page = self.admin_view(views.pending_confirmations)
        return [path("confirmations/pending/", page, name=views.PAGE_URL_NAME), *super().get_urls()]

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[dict[str, Any]]:
        """The admin's app list, with the page's entry for staff, in alphabetical order."""
        app_list = super().get_app_list(request, app_label)
        if request.user.is_active and request.user.is_staff and app_label in (None, APP_LABEL):
            app_list.append(_app_entry())
            app_list.sort(key=lambda app: app["name"].lower())
        return app_list


def _app_entry() -> dict[str, Any]:
    url = reverse(f"admin:{views.PAGE_URL_NAME}")
    page = {
        "name": views.PAGE_TITLE,
        "object_name": "PendingConfirmation",
        "admin_url": url,
        "add_url": None,
        "view_only": True,
        "perms": {"view": True},
    }
    return {
        "name": "Confirmations",
        "app_label": APP_LABEL,
        "app_url": url,
        "has_module_perms": True,
        "models": [page],
    }
