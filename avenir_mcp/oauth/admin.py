"""Admin for OAuth sign-in: the clients that registered, and the owner's grants to them.

Listed beside MCP tokens (the admin orders "MCP sign-in" next to "MCP tools"), with last
use and revoke. Nothing is added, edited or deleted here, superusers included: clients
register themselves and grants come from the consent page, so their pages are titled
"OAuth client …" and "OAuth grant …" and carry no Save or Delete. The one exception is an
active grant's toolsets: the boxes ticked are what its tokens are offered, within what the
service offers (docs/conventions.md#toolsets), and Save keeps them.

Each record's page has a Revoke button (a POST to `<id>/revoke/`, which says what it does
beside it and reports what it did): revoking a grant refuses its access and refresh tokens
at once; revoking a client refuses it and every grant it holds (`OAuthGrant.revoke`,
`OAuthClient.revoke`). The lists keep a bulk revoke in their Action menu.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.text import capfirst
from django.views.decorators.http import require_POST

from avenir_mcp.oauth.models import OAuthClient, OAuthGrant
from avenir_mcp.tokens.forms import ToolsetsField


class RevocableAdmin(admin.ModelAdmin):
    """A record the owner reads and revokes, never adds, edits or deletes."""

    change_form_template = "admin/oauth/revocable_change_form.html"
    revoke_words = ""  # what revoking one does, shown beside the button
    revoked_message = ""  # what the owner is told after

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        """Staff who may change the model may revoke its records (the owner is a superuser)."""
        return request.user.has_perm(f"{self.opts.app_label}.change_{self.opts.model_name}")

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]

    def get_urls(self) -> list[Any]:
        revoke = self.admin_site.admin_view(require_POST(self.revoke_view))
        name = f"{self.opts.app_label}_{self.opts.model_name}_revoke"
        return [path("<path:object_id>/revoke/", revoke, name=name), *super().get_urls()]

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict | None = None
    ) -> HttpResponse:
        """The record's page: "OAuth grant" over its name, and Revoke while it is active."""
        obj = self.get_object(request, unquote(object_id))
        context: dict[str, Any] = {"title": capfirst(self.opts.verbose_name)}
        if obj is not None and obj.revoked_at is None and self.has_revoke_permission(request):
            context["revoke_url"] = reverse(
                f"admin:{self.opts.app_label}_{self.opts.model_name}_revoke", args=[obj.pk]
            )
            context["revoke_words"] = self.revoke_words
        return super().change_view(request, object_id, form_url, {**context, **(extra_context or {})})

    def revoke_view(self, request: HttpRequest, object_id: str) -> HttpResponseRedirect:
        """Revoke the record (the owner pressed Revoke on its page), then back to its page."""
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404(f"No {self.opts.verbose_name} {object_id!r}.")
        if not self.has_revoke_permission(request):
            raise PermissionDenied
        if obj.revoked_at is None:
            obj.revoke()
            self.message_user(request, self.revoked_message.format(name=obj))
        else:
            self.message_user(request, f"{capfirst(self.opts.verbose_name)} {obj} was already revoked.")
        return HttpResponseRedirect(
            reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[obj.pk])
        )


@admin.register(OAuthClient)
class OAuthClientAdmin(RevocableAdmin):
    list_display = ("name", "redirect_hosts", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("name", "client_id")
    actions = ("revoke_clients",)
    exclude = ("secret_hash",)
    revoke_words = (
        "Revoking this client refuses it from now on, with every grant it holds: its tokens stop "
        "working at once. It cannot be undone; the client would have to register and ask you again."
    )
    revoked_message = "Client {name} revoked with its grants; it is refused from now on."

    @admin.display(description="sends codes to")
    def redirect_hosts(self, client: OAuthClient) -> str:
        return ", ".join(sorted({urlsplit(uri).netloc for uri in client.redirect_uris}))

    @admin.action(description="Revoke the selected clients and their grants", permissions=["revoke"])
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
class OAuthGrantAdmin(RevocableAdmin):
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
    revoke_words = (
        "Revoking this grant refuses its access and refresh tokens at once. It cannot be undone; "
        "the client would have to ask you again on the consent page."
    )
    revoked_message = "Grant {name} revoked; its tokens are refused from now on."

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Only an active grant's toolsets may change (a revoked grant stays as it was)."""
        return self.has_revoke_permission(request) and (obj is None or not obj.revoked)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        editable = self.has_change_permission(request, obj)
        return [
            name
            for name in super().get_readonly_fields(request, obj)
            if not (editable and name == "toolsets")
        ]

    @admin.display(description="access")
    def access(self, grant: OAuthGrant) -> str:
        return "read-only" if grant.read_only else "read and propose changes"

    @admin.display(description="toolsets")
    def toolsets_offered(self, grant: OAuthGrant) -> str:
        return grant.toolsets.replace(",", ", ") or "all"

    @admin.action(
        description="Revoke the selected grants (their tokens are refused at once)", permissions=["revoke"]
    )
    def revoke_grants(self, request: HttpRequest, queryset: QuerySet[OAuthGrant]) -> None:
        revoked = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"{revoked} grant(s) revoked; their tokens are refused from now on.")
