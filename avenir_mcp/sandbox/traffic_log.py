"""The request log's rows and the token tags they carry (never a token itself)."""

from __future__ import annotations

import hashlib
import hmac
import logging

from django.conf import settings
from django.db import DatabaseError

from avenir_mcp.sandbox.models import RequestLogEntry
from avenir_mcp.sandbox.traffic_worker import database_worker

logger = logging.getLogger(__name__)


async def write_entry(entry: RequestLogEntry) -> None:
    """Save one request-log row; a database failure is logged, never turned into the answer."""
    try:
        await database_worker.run(entry.save)
    except DatabaseError:
        logger.exception("The sandbox could not log %s %s", entry.method, entry.path)


def bearer_token(headers: list[tuple[bytes, bytes]]) -> str:
    """The bearer token of an ASGI request's `Authorization` header, "" when there is none."""
    for name, value in headers:
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


def token_tag(token: str) -> str:
    """A short tag telling tokens apart in the log, from which the token cannot be recovered.

    Keyed with the secret key, so even a short, guessable token (`sandbox`) cannot be found
    by hashing candidates. "" for no token.
    """
    if not token:
        return ""
    digest = hmac.new(settings.SECRET_KEY.encode(), token.encode(), hashlib.sha256).hexdigest()
    return digest[:12]
