"""A request whose Host is outside ALLOWED_HOSTS is one WARNING line naming the host.

Django reports it on the `django.security.DisallowedHost` logger at ERROR with the whole
traceback, for what is a stranger's probe or a proxy sending the wrong name, not a fault of
the service. `OneWarningLine`, set on that logger in `settings.LOGGING`, makes the record one
WARNING line: Django's own message, which names the host and says to add it to ALLOWED_HOSTS.
/mcp and the OAuth routes check Host themselves (421, `avenir_site/mcp_http.py`) and say it
with `warn_disallowed_host`, on the same logger and in Django's words.
"""

from __future__ import annotations

import logging

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
