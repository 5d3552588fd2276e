"""Dynamic Client Registration (RFC 7591) within bounds: the SDK's handler behind a limit per
client address and limits on what a client may register.

Anyone may register, so what one registration stores is bounded: the request body to
`REGISTRATION_BODY_LIMIT` bytes (read no further: 413), and each metadata field (400
`invalid_client_metadata`, one sentence naming the field and its limit). Nothing is stored
for a refused registration.

How many clients one address may register (`RegistrationLimit`): `AVENIR_MCP_REGISTRATION_LIMIT`
per `REGISTRATION_WINDOW` (10 minutes), then 429 until the window ends. Every POST to /register
counts, accepted or not; a refused one does not (a caller knocking while refused does not push
its own wait back). The counts are rows (`RegistrationCount`), one per address and window, raised
by a conditional UPDATE: every process serving the same database shares them, and two requests
at once cannot both take the last place. Windows are fixed (aligned on the epoch), so an
address registers at most twice the limit across a window's edge.

The address is the ASGI scope's client host. Behind a reverse proxy on the same machine,
uvicorn puts the address from `X-Forwarded-For` there (it trusts the proxies in
`FORWARDED_ALLOW_IPS`, by default 127.0.0.1 and ::1).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db.models import F
from django.utils import timezone
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.shared.auth import OAuthClientMetadata
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope

from avenir_mcp.oauth.models import REGISTRATION_WINDOW, RegistrationCount

REGISTRATION_BODY_LIMIT = 16 * 1024  # bytes; a real client's metadata is well under 1 kB
TEXT_LIMIT = 200  # characters of a name, a scope, a software id or version, a contact, a grant type
URI_LIMIT = 2000  # characters of a URI
LIST_LIMIT = 10  # entries of a list: redirect URIs, contacts, grant types, response types
KEYS_LIMIT = 4000  # characters of the client's JSON Web Key Set (`jwks`) as JSON


# --- how many registrations one address may make ---------------------------------------------


@dataclass(frozen=True)
class Admission:
    """The limit's answer to one registration attempt."""

    admitted: bool
    retry_after: int  # whole seconds until this address may register again; 0 when admitted


def client_address(scope: Scope) -> str:
    """The caller's address as the server saw it (after uvicorn's proxy headers); empty when
    the server gives none (a Unix socket)."""
    return (scope.get("client") or ("",))[0]


def window_start(moment: datetime) -> datetime:
    """The start of the window `moment` falls in."""
    seconds = REGISTRATION_WINDOW.total_seconds()
    return datetime.fromtimestamp(moment.timestamp() // seconds * seconds, tz=UTC)


@dataclass
class RegistrationLimit:
    """Counts registration attempts per address; `clock` is replaceable for tests."""

    clock: Callable[[], datetime] = field(default=timezone.now)

    def admit(self, address: str) -> Admission:
        """Count one attempt from `address` if the window has room (runs three small queries)."""
        now = self.clock()
        start = window_start(now)
        RegistrationCount.objects.filter(window_start__lt=start).delete()  # windows that ended
        row, _ = RegistrationCount.objects.get_or_create(address=address, window_start=start)
        counted = RegistrationCount.objects.filter(
            pk=row.pk, count__lt=settings.AVENIR_MCP_REGISTRATION_LIMIT
        ).update(count=F("count") + 1)
        if counted:
            return Admission(admitted=True, retry_after=0)
        remaining = start + REGISTRATION_WINDOW - now
        return Admission(admitted=False, retry_after=math.ceil(remaining.total_seconds()))


# --- what one registration may hold ------------------------------------------------------------


def metadata_problem(metadata: OAuthClientMetadata) -> str | None:
    """Why this metadata is refused for its size (the error's description), or None."""
    lists = {
        "redirect_uris": [str(uri) for uri in metadata.redirect_uris or []],
        "contacts": metadata.contacts or [],
        "grant_types": metadata.grant_types,
        "response_types": metadata.response_types,
    }
    for name, entries in lists.items():
        if len(entries) > LIST_LIMIT:
            return f"{name} has {len(entries)} entries; give at most {LIST_LIMIT}."
    for name, value, limit in _sized_values(metadata, lists):
        if value is not None and len(value) > limit:
            return f"{name} is longer than {limit} characters; shorten it."
    return None


def _sized_values(
    metadata: OAuthClientMetadata, lists: dict[str, list[str]]
) -> Iterator[tuple[str, str | None, int]]:
    """Each free-text value of the metadata as (what it is, the text, its limit)."""
    for name in ("client_name", "scope", "software_id", "software_version"):
        yield name, getattr(metadata, name), TEXT_LIMIT
    for name in ("client_uri", "logo_uri", "tos_uri", "policy_uri", "jwks_uri"):
        uri = getattr(metadata, name)
        yield name, None if uri is None else str(uri), URI_LIMIT
    for uri in lists["redirect_uris"]:
        yield "A redirect URI", uri, URI_LIMIT
    for name in ("contacts", "grant_types", "response_types"):
        for entry in lists[name]:
            yield f"An entry of {name}", entry, TEXT_LIMIT
    yield "jwks", None if metadata.jwks is None else json.dumps(metadata.jwks), KEYS_LIMIT


@dataclass
class BoundedRegistrationHandler(RegistrationHandler):
    """The SDK's registration endpoint behind the registration limit and the bounds above."""

    limit: RegistrationLimit = field(default_factory=RegistrationLimit)

    async def handle(self, request: Request) -> Response:
        admission = await sync_to_async(self.limit.admit)(client_address(request.scope))
        if not admission.admitted:
            wait = admission.retry_after
            message = f"Too many client registrations from this address: try again in {wait} seconds."
            return registration_error(429, "too_many_requests", message, headers={"Retry-After": str(wait)})
        body = await _body_within(request, REGISTRATION_BODY_LIMIT)
        if body is None:
            message = (
                f"The registration is larger than {REGISTRATION_BODY_LIMIT} bytes; send only its metadata."
            )
            return registration_error(413, "invalid_client_metadata", message)
        try:
            problem = metadata_problem(OAuthClientMetadata.model_validate_json(body))
        except ValidationError:
            problem = None  # malformed: the SDK's handler answers it, in its words
        if problem is not None:
            return registration_error(400, "invalid_client_metadata", problem)
        return await super().handle(Request(request.scope, _replay(body)))


def registration_error(
    status: int, error: str, description: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """An error answer as RFC 7591 §3.2.2 writes them."""
    return JSONResponse(
        {"error": error, "error_description": description},
        status_code=status,
        headers={"Cache-Control": "no-store", **(headers or {})},
    )


async def _body_within(request: Request, limit: int) -> bytes | None:
    """The request body, or None as soon as it grows past `limit` bytes (the rest is not read)."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _replay(body: bytes) -> Receive:
    """A `receive` giving the body already read, for the SDK's handler to read again."""

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    return receive
