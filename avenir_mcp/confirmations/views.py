"""The "Pending confirmations" admin page: what waits for the person, and a revoke button.

Served inside the Django admin (`confirmations.admin` adds it to the admin site), so it
needs a logged-in staff user and every POST carries the CSRF token. Codes and questions
live in `confirmations.codes.store`: the serving process's memory, or with `REDIS_URL` Redis,
where the page shows what every process issued; never a code given to the agent. A code issued for the person
(`AVENIR_MCP_CODES_TO=person`) is shown here, to the staff owner, and nowhere else: it is
how the person, and only the person, can confirm.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from avenir_mcp.confirmations import codes
from avenir_mcp.confirmations.codes import Kind, PendingConfirmation
from avenir_mcp.ynab_client import plan_label, plan_names

PAGE_URL_NAME = "confirmations_pending"
PAGE_TITLE = "Pending confirmations"
KIND_LABELS = {Kind.CODE: "confirmation code (agent)", Kind.QUESTION: "question in the client"}


def pending_page_url() -> str:
    """The page's full address, as the person opens it (`AVENIR_MCP_SELF_URL` + its admin path)."""
    return settings.AVENIR_MCP_SELF_URL.rstrip("/") + reverse(f"admin:{PAGE_URL_NAME}")


@dataclass(frozen=True)
class PendingRow:
    """One line of the page: a pending confirmation as the owner reads it."""

    item: PendingConfirmation
    plan: str  # the plan's name when known (`mcp_surface.plan_lookup`), else the start of its id
    kind_label: str
    expires_in: str


@require_http_methods(["GET", "POST"])
def pending_confirmations(request: HttpRequest) -> HttpResponse:
    """List what waits (GET) or revoke one by its public id (POST)."""
    if request.method == "POST":
        return _revoke(request)
    context = {**admin.site.each_context(request), "title": PAGE_TITLE, "rows": pending_rows()}
    return TemplateResponse(request, "confirmations/pending.html", context)


def pending_rows() -> list[PendingRow]:
    """What waits for the person in this process, as the page and the admin's index show it."""
    names = plan_names()
    return [_row(item, names) for item in codes.store.pending()]


def _revoke(request: HttpRequest) -> HttpResponseRedirect:
    if codes.store.revoke(request.POST.get("id", "")):
        messages.success(request, "Revoked: that confirmation can no longer be used.")
    else:
        messages.warning(request, "Nothing to revoke: it was already used, expired or revoked.")
    return HttpResponseRedirect(reverse(f"admin:{PAGE_URL_NAME}"))


def _row(item: PendingConfirmation, names: dict[str, str]) -> PendingRow:
    minutes, seconds = divmod(item.expires_in_seconds, 60)
    return PendingRow(
        item=item,
        plan=plan_label(item.plan_id, names),
        kind_label=KIND_LABELS[item.kind],
        expires_in=f"{minutes} min {seconds:02d} s",
    )
