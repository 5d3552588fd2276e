"""How many clients one address may register: `AVENIR_MCP_REGISTRATION_LIMIT` per
`REGISTRATION_WINDOW` (10 minutes), then 429 until the window ends.

/register answers anyone (RFC 7591 open registration, as hosted MCP clients need), so without
a limit one unauthenticated caller could fill the database. Every POST to /register counts,
accepted or not; a refused one does not (a caller knocking while refused does not push its own
wait back). The counts are rows (`RegistrationCount`), one per address and window, raised by
a conditional UPDATE: every process serving the same database shares them, and two requests
at once cannot both take the last place. Windows are fixed (aligned on the epoch), so an
address registers at most twice the limit across a window's edge.

The address is the ASGI scope's client host. Behind a reverse proxy on the same machine,
uvicorn puts the address from `X-Forwarded-For` there (it trusts the proxies in
`FORWARDED_ALLOW_IPS`, by default 127.0.0.1 and ::1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.db.models import F
from django.utils import timezone
from starlette.types import Scope

from oauth.models import REGISTRATION_WINDOW, RegistrationCount


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
