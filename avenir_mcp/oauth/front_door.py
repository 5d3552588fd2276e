"""The front door's Host and Origin rules, for /mcp and the OAuth routes alike.

A Host outside ALLOWED_HOSTS is answered 421 (Django's own rule, `HttpRequest.get_host`,
ports ignored) and an Origin on another host 403, before anything else runs. A refused Host is
one WARNING line naming it: Django reports its own refusals on the
`django.security.DisallowedHost` logger at ERROR with the whole traceback, for what is a
stranger's probe or a proxy sending the wrong name, not a fault of the service; `OneWarningLine`,
set on that logger in `settings.LOGGING`, makes such a record one WARNING line in Django's words.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from starlette.responses import PlainTextResponse, Response

logger = logging.getLogger("django.security.DisallowedHost")


class OneWarningLine(logging.Filter):
    """Makes every record of its logger a WARNING without traceback (one line in any log)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        record.exc_info = record.exc_text = record.stack_info = None
        return True


def warn_disallowed_host(host: str) -> None:
    """Log a Host refused with 421 as Django logs one it refuses (`HttpRequest.get_host`)."""
    logger.warning(
        "Invalid HTTP_HOST header: %r (answered 421). You may need to add its name to ALLOWED_HOSTS.", host
    )


def refused_host_answer(host: str) -> Response:
    """421 for a Host outside ALLOWED_HOSTS, logged as one WARNING line as Django logs its own."""
    warn_disallowed_host(host)
    return PlainTextResponse("Invalid Host header", status_code=421)


def host_allowed(host: str) -> bool:
    """Django's Host rule (`HttpRequest.get_host`), ports ignored."""
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, _allowed_hosts())


def origin_allowed(origin: str) -> bool:
    """An Origin is allowed when it is an http(s) origin on an allowed host.

    A browser page elsewhere (or a sandboxed one, `Origin: null`) cannot drive /mcp.
    """
    parts = urlsplit(origin)
    if parts.scheme not in {"http", "https"} or parts.path or parts.query:
        return False
    return host_allowed(parts.netloc)


def _allowed_hosts() -> list[str]:
    # Same fallback as Django: with DEBUG and no ALLOWED_HOSTS, local names only.
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return [".localhost", "127.0.0.1", "[::1]"]
    return list(settings.ALLOWED_HOSTS)
