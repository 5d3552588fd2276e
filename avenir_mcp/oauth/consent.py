"""The consent page: the owner, logged in to the admin, allows or denies a client.

`/authorize` (the SDK's handler) checks the request, then sends the browser here with the
request signed (`ConsentRequest`, valid for `CONSENT_LIFETIME`): nothing is stored until
the owner answers. Allow issues a single-use code and sends the browser back to the
client's registered redirect URI; Deny sends it back with `error=access_denied` (RFC 6749
§4.1.2.1); both name the issuer (`iss`, RFC 9207). Both answers are POSTs under Django's
CSRF protection; the page cannot be framed (`X-Frame-Options: DENY`), so another site
cannot click Allow for the owner.

The consent page, its refusals and the login on the way are the sign-in's own pages
(avenir_mcp/oauth/templates/oauth/page.html), outside the admin's chrome. An owner not logged in is
sent to the admin's login with the consent page as `next`; that login page
(`AdminSite.login_template`, avenir_mcp/oauth/templates/oauth/sign_in.html) asks `consent_asked` which
client asks for what, trusting the signed request only once its signature verifies.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.core import signing
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from mcp.server.auth.provider import construct_redirect_uri

from avenir_mcp.oauth.addresses import public_url
from avenir_mcp.oauth.models import SCOPE_READ, SCOPE_WRITE, OAuthClient, OAuthCode, scope_text

CONSENT_LIFETIME = timedelta(minutes=10)
_SALT = "avenir-mcp oauth consent"


@dataclass(frozen=True)
class ConsentRequest:
    """An authorization request the SDK's handler has checked, waiting for the owner's answer."""

    client_id: str
    scopes: tuple[str, ...]
    code_challenge: str
    redirect_uri: str
    redirect_uri_provided_explicitly: bool
    state: str | None
    resource: str

    @property
    def asks_to_write(self) -> bool:
        return SCOPE_WRITE in self.scopes

    @property
    def what_it_asks(self) -> str:
        """What the client asks, in the owner's words."""
        return "read your plans and propose changes" if self.asks_to_write else "read your plans"

    @property
    def may_write(self) -> bool:
        """Whether the owner may allow changes: asked for, or no scope asked at all (the owner
        then chooses, read only preselected)."""
        return self.asks_to_write or not self.scopes

    def granted(self, access: str | None) -> tuple[str, ...]:
        """The scopes the owner's answer grants: `access` is `read` or `read_write`; without
        one, what the client asked for (read only when it asked nothing)."""
        if not self.may_write:
            return (SCOPE_READ,)
        chosen = access or ("read_write" if self.asks_to_write else "read")
        return (SCOPE_READ, SCOPE_WRITE) if chosen == "read_write" else (SCOPE_READ,)

    def page_url(self) -> str:
        signed = signing.dumps(asdict(self), salt=_SALT, compress=True)
        return f"{public_url()}{reverse('oauth:consent')}?{urlencode({'request': signed})}"

    @classmethod
    def from_signed(cls, signed: str) -> ConsentRequest:
        """Raises `signing.BadSignature` (also `SignatureExpired`) for anything we did not sign."""
        fields = signing.loads(signed, salt=_SALT, max_age=CONSENT_LIFETIME)
        return cls(**{**fields, "scopes": tuple(fields["scopes"])})

    def answer(self, **params: str | None) -> HttpResponseRedirect:
        """Back to the client's redirect URI with `params` (and the client's `state`, and `iss`)."""
        return HttpResponseRedirect(authorization_response(self.redirect_uri, **params, state=self.state))


def consent_asked(next_url: str) -> str | None:
    """What the login page says when `next_url` (its `next`) is the consent page: "<client>
    asks to read your plans[ and propose changes]; sign in to answer". None, for the plain
    login, when it is another page, or its request was not signed here, is expired, or names
    a client no longer registered."""
    where = urlsplit(next_url)
    if where.path != reverse("oauth:consent"):
        return None
    try:
        pending = ConsentRequest.from_signed(parse_qs(where.query).get("request", [""])[0])
    except signing.BadSignature:
        return None
    client = OAuthClient.objects.active().filter(client_id=pending.client_id).first()
    return None if client is None else f"{client.name} asks to {pending.what_it_asks}; sign in to answer."


def authorization_response(redirect_uri: str, **params: str | None) -> str:
    """`redirect_uri` with the response's `params` and `iss`, the issuer (RFC 9207): a client
    that talks to several authorization servers can tell which one answered (no mix-up)."""
    return construct_redirect_uri(redirect_uri, **params, iss=public_url())


@never_cache
@staff_member_required
@require_http_methods(["GET", "POST"])
def consent(request: HttpRequest) -> HttpResponse:
    signed = request.POST.get("request") if request.method == "POST" else request.GET.get("request")
    try:
        pending = ConsentRequest.from_signed(signed or "")
    except signing.BadSignature:
        return _refused_page(request, "This sign-in link is invalid or expired: start again from the client.")
    client = OAuthClient.objects.active().filter(client_id=pending.client_id).first()
    if client is None:
        return _refused_page(request, "This client is no longer registered: add the connector again.")
    if request.method == "GET":
        return _page(request, pending, client)
    decision = request.POST.get("decision")
    if decision == "deny":
        return pending.answer(error="access_denied", error_description="The owner denied access.")
    if decision != "allow":
        return _refused_page(request, "Choose Allow or Deny.")
    code = OAuthCode.issue(
        client=client,
        owner=request.user,
        scope=scope_text(pending.granted(request.POST.get("access"))),
        resource=pending.resource,
        code_challenge=pending.code_challenge,
        redirect_uri=pending.redirect_uri,
        redirect_uri_provided_explicitly=pending.redirect_uri_provided_explicitly,
    )
    return pending.answer(code=code)


def _page(request: HttpRequest, pending: ConsentRequest, client: OAuthClient) -> HttpResponse:
    context = {
        "title": f"Allow {client.name}?",
        "client": client,
        "pending": pending,
        "signed": request.GET.get("request"),
        "redirect_host": urlsplit(pending.redirect_uri).netloc,
        "writes_on": settings.AVENIR_MCP_WRITE,
    }
    return render(request, "oauth/consent.html", context)


def _refused_page(request: HttpRequest, message: str) -> HttpResponse:
    context = {"title": "Sign-in refused", "message": message}
    return render(request, "oauth/refused.html", context, status=400)
