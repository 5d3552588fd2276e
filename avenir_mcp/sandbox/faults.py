"""Making the sandbox misbehave on purpose, and reading what it served (for tests and demos).

The Python API tests call (all synchronous):

- `inject(kind, method=, path=, status=, delay_ms=, count=)`: the next `count` API requests
  matching `method` and `path` fail, wait, or lose their answer; see `inject`.
- `clear_faults()`, `reset_rate_limit()`: back to a well-behaved sandbox.
- `last_request_id()`, `requests_since(entry_id)`: the request log, to count what reached
  "YNAB" after a point (`mark = last_request_id()`, act, `requests_since(mark)`).

`claim_fault` is what the traffic layer (`sandbox.traffic`) calls for each API request.
The same faults can be set over HTTP at `/sandbox/_faults` (`sandbox.testing_views`).
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.db.models import F, Max, Q

from avenir_mcp.sandbox.models import Fault, RequestLogEntry
from avenir_mcp.sandbox.traffic_limit import rate_limiter

API_ROOT = "/sandbox/v1"
KINDS = [kind for kind, _label in Fault.KINDS]
MAX_DELAY_MS = 600_000  # ten minutes: longer than any client's timeout, still bounded


def inject(
    kind: str,
    *,
    method: str = "",
    path: str = "",
    status: int | None = None,
    delay_ms: int = 0,
    count: int = 1,
) -> Fault:
    """Make the next `count` sandbox API requests matching `method` and `path` misbehave.

    kind:
        "status": answer `status` (400-599) with YNAB's error body, without running the
            request (nothing is written). A 429 carries `Retry-After`: `delay_ms` rounded up
            to whole seconds, or 60 when `delay_ms` is 0.
        "delay": wait `delay_ms` (> 0), then run the request normally, to the end even if the
            client gave up meanwhile (a timeout): its write lands late, as YNAB's would.
        "drop_after_write": run the request (its write is applied and committed), then close
            the connection with no complete answer: the client sees a transport error.
        "drop_before_write": close the connection with no complete answer WITHOUT running the
            request (nothing is written): to the client it looks exactly like
            `drop_after_write`, so only reading the data back tells the two apart.
    method: "GET", "PATCH", ... (any case); "" matches every method.
    path: a regular expression searched in the request path, with or without the
        `/sandbox/v1` prefix: `r"/payees/"`, `r"^/plans/[^/]+$"`; "" matches every path.

    Faults are used oldest first, one use per matching request, atomically (two concurrent
    requests never both take a fault's last use). Raises ValidationError if malformed.
    """
    fault = Fault(
        kind=kind,
        method=method.upper(),
        path_pattern=path,
        status=status,
        delay_ms=delay_ms,
        remaining=count,
    )
    check_fault(fault)
    fault.save()
    return fault


def clear_faults() -> None:
    """Remove every injected fault, used up or not."""
    Fault.objects.all().delete()


def reset_rate_limit() -> None:
    """Forget every request counted by the rate-limit emulation, for every token."""
    rate_limiter.reset()


def last_request_id() -> int:
    """The id of the newest request-log entry, 0 when the log is empty."""
    return RequestLogEntry.objects.aggregate(newest=Max("id"))["newest"] or 0


def requests_since(entry_id: int) -> list[RequestLogEntry]:
    """Request-log entries with an id above `entry_id`, oldest first."""
    return list(RequestLogEntry.objects.filter(id__gt=entry_id).order_by("id"))


def check_fault(fault: Fault) -> None:
    """Refuse a fault that could never act as its kind says (ValidationError, every reason)."""
    problems = [*_kind_problems(fault), *_match_problems(fault)]
    if not _is_whole(fault.remaining) or fault.remaining < 1:
        problems.append("A fault must apply to at least 1 request (count).")
    if problems:
        raise ValidationError(problems)


def claim_fault(method: str, path: str) -> Fault | None:
    """Take one use of the oldest live fault matching this request, or None.

    The use is taken by a conditional UPDATE, so of two concurrent requests only one can
    take a fault's last use; the loser moves on to the next matching fault, if any.
    """
    live = Fault.objects.filter(remaining__gt=0).filter(Q(method="") | Q(method=method.upper()))
    for fault in live.order_by("id"):
        if _path_matches(fault.path_pattern, path) and _take_one_use(fault):
            return fault
    return None


def _take_one_use(fault: Fault) -> bool:
    taken = Fault.objects.filter(pk=fault.pk, remaining__gt=0).update(remaining=F("remaining") - 1)
    fault.remaining -= taken
    return taken == 1


def _path_matches(pattern: str, path: str) -> bool:
    if not pattern:
        return True
    api_path = path.removeprefix(API_ROOT) if path.startswith(API_ROOT + "/") else path
    try:
        return re.search(pattern, path) is not None or re.search(pattern, api_path) is not None
    except re.error:  # a pattern saved without `check_fault` matches nothing rather than failing
        return False


def _kind_problems(fault: Fault) -> list[str]:
    if fault.kind not in KINDS:
        return [f"The kind must be one of {', '.join(KINDS)}, not {fault.kind!r}."]
    return [*_status_problems(fault), *_delay_problems(fault)]


def _status_problems(fault: Fault) -> list[str]:
    if fault.kind != Fault.KIND_STATUS:
        return (
            [] if fault.status is None else [f"status only applies to a status fault, not to {fault.kind}."]
        )
    if not _is_whole(fault.status) or not 400 <= fault.status <= 599:
        return ["A status fault needs a status from 400 to 599."]
    return []


def _delay_problems(fault: Fault) -> list[str]:
    if not _is_whole(fault.delay_ms) or not 0 <= fault.delay_ms <= MAX_DELAY_MS:
        return [f"delay_ms must be a whole number from 0 to {MAX_DELAY_MS}."]
    if fault.kind == Fault.KIND_DELAY and fault.delay_ms == 0:
        return ["A delay fault needs delay_ms above 0."]
    announces_retry_after = fault.kind == Fault.KIND_STATUS and fault.status == 429
    if fault.kind != Fault.KIND_DELAY and fault.delay_ms and not announces_retry_after:
        return ["delay_ms only applies to a delay fault, or to a 429 status fault (its Retry-After)."]
    return []


def _match_problems(fault: Fault) -> list[str]:
    problems = []
    if not isinstance(fault.method, str) or not re.fullmatch(r"[A-Z]{0,10}", fault.method):
        problems.append(f"The method must be an HTTP method such as GET or PATCH, not {fault.method!r}.")
    if not isinstance(fault.path_pattern, str) or len(fault.path_pattern) > 300:
        problems.append("The path must be a regular expression of at most 300 characters.")
        return problems
    try:
        re.compile(fault.path_pattern)
    except re.error as error:
        problems.append(f"The path is not a valid regular expression: {error}.")
    return problems


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
