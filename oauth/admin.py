"""Admin for OAuth sign-in: the clients that registered, and the owner's grants to them.

Listed beside MCP tokens (the admin orders "MCP sign-in" next to "MCP tools"), with last
use and revoke. Nothing is added here: clients register themselves and grants come from the
consent page. A grant's toolsets are the one thing edited: the boxes ticked are what its
tokens are offered, within what the service offers (docs/conventions.md#toolsets). Revoking a
grant refuses its access and refresh tokens at once; revoking a client refuses it and every
grant it holds.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from oauth.models import OAuthClient, OAuthGrant
from tokens.forms import ToolsetsField


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]


@admin.register(OAuthClient)
class OAuthClientAdmin(ReadOnlyAdmin):
    list_display = ("name", "redirect_hosts", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("name", "client_id")
    actions = ("revoke_clients",)
    exclude = ("secret_hash",)

    @admin.display(description="sends codes to")
    def redirect_hosts(self, client: OAuthClient) -> str:
        return ", ".join(sorted({urlsplit(uri).netloc for uri in client.redirect_uris}))

    @admin.action(description="Revoke the selected clients and their grants", permissions=["change"])
    def revoke_clients(self, request: HttpRequest, queryset: QuerySet[OAuthClient]) -> None:
        clients = list(queryset.filter(revoked_at__isnull=True))
        for client in clients:
            client.revoke()
        self.message_user(
            request, f"{len(clients)} client(s) revoked with their grants; they are refused from now on."
        )


class OAuthGrantForm(forms.ModelForm):
    toolsets = ToolsetsField()

    class Meta:
        model = OAuthGrant
        fields = ("toolsets",)


@admin.register(OAuthGrant)
class OAuthGrantAdmin(ReadOnlyAdmin):
    form = OAuthGrantForm
    list_display = (
        "client",
        "access",
        "toolsets_offered",
        "owner",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    list_select_related = ("client", "owner")
    search_fields = ("client__name",)
    actions = ("revoke_grants",)

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        return [name for name in super().get_readonly_fields(request, obj) if name != "toolsets"]

    @admin.display(description="access")
    def access(self, grant: OAuthGrant) -> str:
        return "read-only" if grant.read_only else "read and propose changes"

    @admin.display(description="toolsets")
    def toolsets_offered(self, grant: OAuthGrant) -> str:
        return grant.toolsets.replace(",", ", ") or "all"

    @admin.action(
        description="Revoke the selected grants (their tokens are refused at once)", permissions=["change"]
    )
    def revoke_grants(self, request: HttpRequest, queryset: QuerySet[OAuthGrant]) -> None:
        revoked = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"{revoked} grant(s) revoked; their tokens are refused from now on.")
