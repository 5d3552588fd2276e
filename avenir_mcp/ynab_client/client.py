"""The YNAB client: one method per endpoint the tools use, and how each request is sent.

`get_ynab_client()` gives the client for the configured YNAB (`AVENIR_MCP_YNAB_URL`, token
`YNAB_API_KEY` or the sandbox's), read when called, so a settings change takes effect.
A `YnabClient` keeps one `httpx2.AsyncClient` per event loop (an AsyncClient must not
cross loops; uvicorn runs one, test suites many), with explicit timeouts (30 s, 10 s to
connect), no redirects, HTTPS required except on loopback.

URL paths are built from checked parts only, so no text can add, climb or query a path: a
plan id comes checked from where it entered (`mcp_surface.plan_lookup`, or YNAB's own answers);
every other id is checked here (`values.ids.check_id`: `IdError`, nothing sent); a
month segment is `current` or a real `YYYY-MM-DD` date (else `ValueError`: a caller's bug,
since tools check months as arguments first).

Each method returns the `data` member of YNAB's answer: parsed types for the plan list,
YNAB's JSON (`dict`) for the rest, amounts in milliunits. Failures raise `YnabError`
(`PacingRefused`, `UnknownOutcome`; see `ynab_client.errors`). Write methods take
`check_hint`: the sentence the `UnknownOutcome` message ends with, saying how to check
(e.g. "Check with find_transactions before trying again.").

Sending (`Sender.send(call)`, a 2xx `httpx2.Response` or a `YnabError`). What may be
retried, at most 3 attempts in all, with jittered backoff:

- any request proven never sent (connection refused, connect timeout, no free connection);
- a GET that got no answer (timeout, connection closed or broken) or a 502/503/504.

Nothing else. A write that was sent is never sent again: when no answer comes back it is
`UnknownOutcome` (the change may or may not be in YNAB; the message says how to check).
A 429 is never retried: the token's pacer pauses and the error says until when (and carries
YNAB's `Retry-After`). Every attempt takes one request from the pacer first, as the kind the
context gives it (`ynab_client.pacing.request_kind`; anything but a GET is at least a write; a
rollback is never refused), and is recorded as a `YnabRequest`.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import random
import re
import ssl
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import anyio
import httpx2
from asgiref.sync import sync_to_async
from django.conf import settings

from avenir_mcp.values.ids import check_id
from avenir_mcp.ynab_client import pacing, write_marks
from avenir_mcp.ynab_client.errors import MalformedAnswer, UnknownOutcome, YnabError, error_for_status
from avenir_mcp.ynab_client.pacing import (
    Pacer,
    RequestKind,
    current_kind,
    pacer_for,
    retry_after_seconds,
    wait_phrase,
)
from avenir_mcp.ynab_client.snapshot import Json, PlanSummary, parse_plan_summaries
from avenir_mcp.ynab_client.write_marks import WriteMark

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = httpx2.Timeout(30.0, connect=10.0)
_OFF_LOOP_BYTES = 1024 * 1024
ALIASES = frozenset({"last-used", "default"})  # plan ids YNAB resolves itself


# --- URL paths ------------------------------------------------------------------------------

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_MONTH_SEGMENT = re.compile(r"current|[0-9]{4}-[0-9]{2}-[0-9]{2}")


def plan_path(plan_id: str) -> str:
    """`/plans/{plan}`: the plan id is checked where it entered (`mcp_surface.plan_lookup`), once."""
    return f"/plans/{plan_id}"


def entity_path(plan_id: str, kind: str, entity_id: str, *, what: str) -> str:
    """`/plans/{plan}/{kind}/{id}`, the entity id checked; `kind` is this module's constant."""
    return f"{plan_path(plan_id)}/{kind}/{check_id(entity_id, what=what)}"


def month_segment(month: str | date) -> str:
    """`current`, or a date as `YYYY-MM-DD`; anything else raises `ValueError`."""
    if isinstance(month, date):
        return month.isoformat()
    is_segment = isinstance(month, str) and _MONTH_SEGMENT.fullmatch(month) is not None
    if is_segment and (month == "current" or _is_real_date(month)):
        return month
    raise ValueError(f"{str(month)[:20]!r} is not a month for YNAB: give 'current' or YYYY-MM-DD.")


def _is_real_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def check_base_url(base_url: str) -> str:
    """The base URL without a trailing slash; HTTPS required except for loopback hosts. A refused
    address is the configuration's mistake, not YNAB's: a `ValueError` saying what to fix."""
    url = httpx2.URL(base_url)
    if url.scheme == "https" and url.host:
        return str(url).rstrip("/")
    if url.scheme == "http" and url.host in LOOPBACK_HOSTS:
        return str(url).rstrip("/")
    raise ValueError(
        f"The YNAB address {base_url[:80]!r} is refused: it must start with https:// "
        "(plain http is allowed only for 127.0.0.1, ::1 or localhost). Fix AVENIR_MCP_YNAB_URL."
    )


# --- Sending one request: pacing, safe retries, recording, errors ----------------------------

MAX_ATTEMPTS = 3
DEFAULT_DELAYS = (0.5, 2.0)  # before the 2nd and 3rd attempts, each jittered to 50-150 %
RETRIED_STATUSES = frozenset({502, 503, 504})
DEFAULT_CHECK_HINT = "Read the plan again to see whether it is there before trying again."

# Raised before a single byte of the request could reach YNAB.
NEVER_SENT = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout)
_REASONS = {
    httpx2.ConnectError: "the connection was refused or could not be made",
    httpx2.ConnectTimeout: "connecting timed out",
    httpx2.PoolTimeout: "no connection was free in time",
    httpx2.ReadTimeout: "no answer came within the time limit",
    httpx2.WriteTimeout: "sending the request timed out",
    httpx2.RemoteProtocolError: "the connection closed before a complete answer",
    httpx2.ReadError: "the connection broke while the answer was read",
    httpx2.WriteError: "the connection broke while the request was sent",
}


@dataclass(frozen=True, slots=True)
class ApiCall:
    """One request to make: method, path under the base URL (ids already checked), query, body.

    `check_hint` (writes) says how to check whether the change landed if no answer comes.
    """

    method: str
    path: str
    params: dict[str, Any] | None = None
    body: Any = None
    check_hint: str | None = None

    @property
    def is_read(self) -> bool:
        return self.method == "GET"

    def kind(self) -> RequestKind:
        """What the pacer counts it as: the context's kind, at least `WRITE` for a write."""
        return current_kind() if self.is_read else max(current_kind(), RequestKind.WRITE)

    def logged_path(self) -> str:
        query = "&".join(f"{key}={value}" for key, value in (self.params or {}).items())
        return f"{self.path}?{query}" if query else self.path


class Sender:
    """Sends calls for one (base URL, token): pacing, retries, records, errors."""

    def __init__(
        self,
        *,
        http: Callable[[], httpx2.AsyncClient],
        pacer: Pacer,
        token_tag: str,
        host: str,
        delays: Sequence[float] = DEFAULT_DELAYS,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    ) -> None:
        self._http = http
        self.pacer = pacer
        self.token_tag = token_tag
        self._host = host
        self._delays = tuple(delays)
        self._sleep = sleep

    async def send(self, call: ApiCall) -> httpx2.Response:
        await self._seed_pacer()
        for attempt in range(1, MAX_ATTEMPTS):
            response = await self._attempt(call, last=False)
            if response is not None:
                return response
            await self._sleep(self._delay(attempt))
        response = await self._attempt(call, last=True)
        assert response is not None  # the last attempt returns or raises
        return response

    async def _attempt(self, call: ApiCall, *, last: bool) -> httpx2.Response | None:
        """The answer; None to retry; raises when retrying is over or not allowed."""
        stamp = self.pacer.reserve(call.kind())
        started = time.perf_counter()
        try:
            response = await self._http().request(call.method, call.path, params=call.params, json=call.body)
        except NEVER_SENT as exc:
            self.pacer.release(stamp)
            await self._record(call, stamp, started, None, pacing.NOT_SENT)
            if last:
                raise self._unreachable(exc) from exc
            return None
        except httpx2.TransportError as exc:
            await self._record(call, stamp, started, None, "no_answer")
            if not call.is_read:
                raise _unknown_outcome(call, exc) from exc
            if last:
                raise _no_answer(exc) from exc
            return None
        return await self._handle_answer(call, response, stamp, started, last=last)

    async def _handle_answer(
        self, call: ApiCall, response: httpx2.Response, stamp: float, started: float, *, last: bool
    ) -> httpx2.Response | None:
        status = response.status_code
        retry_after = response.headers.get("Retry-After")
        await self._record(call, stamp, started, status, pacing.outcome_for_status(status, retry_after))
        if response.is_success:
            return response
        if status == 429:
            raise self._rate_limit_error(response, retry_after)
        if status in RETRIED_STATUSES and call.is_read and not last:
            return None
        raise error_from_response(response, method=call.method)

    def _rate_limit_error(self, response: httpx2.Response, retry_after: str | None) -> YnabError:
        until = self.pacer.pause(retry_after)
        error_id, name, detail = _envelope(response)
        return YnabError(
            "YNAB refused: too many requests (429; YNAB allows 200 an hour per token). Nothing will "
            f"be sent to YNAB until {wait_phrase(until, self.pacer.clock())}; try again then.",
            retry_after=retry_after_seconds(retry_after, self.pacer.clock()),
            status=429,
            error_id=error_id,
            name=name,
            detail=detail,
            retryable=True,
        )

    def _unreachable(self, exc: httpx2.TransportError) -> YnabError:
        return YnabError(
            f"YNAB could not be reached at {self._host} ({_reason(exc)}) after {MAX_ATTEMPTS} attempts; "
            "nothing was sent. Check the network and AVENIR_MCP_YNAB_URL, then try again.",
            retryable=True,
        )

    def _delay(self, attempt: int) -> float:
        base = self._delays[min(attempt, len(self._delays)) - 1] if self._delays else 0.0
        return base * (0.5 + random.random())  # jitter, so clients do not retry in step

    async def _seed_pacer(self) -> None:
        if self.pacer.needs_history:
            history = await sync_to_async(pacing.request_log.last_hour)(self.token_tag, self.pacer.clock())
            self.pacer.seed(history.sent_at, history.paused_until, history.reads_of)

    def seed_pacer_now(self) -> None:
        """`_seed_pacer` from synchronous code (a process's warm-up), so no call waits for it."""
        if self.pacer.needs_history:
            history = pacing.request_log.last_hour(self.token_tag, self.pacer.clock())
            self.pacer.seed(history.sent_at, history.paused_until, history.reads_of)

    async def _record(
        self, call: ApiCall, stamp: float, started: float, status: int | None, outcome: str
    ) -> None:
        attempt = pacing.Attempt(
            token_tag=self.token_tag,
            method=call.method,
            path=call.logged_path(),
            sent_at=stamp,
            duration_ms=(time.perf_counter() - started) * 1000,
            status=status,
            outcome=outcome,
            spender=pacing.share_spender(call.kind()),
        )
        try:
            await pacing.request_log.record(attempt)
        except Exception:
            # The request has happened; losing its record must not turn its result into an error.
            logger.exception("Could not record a YNAB request (%s %s)", call.method, call.path)


def error_from_response(response: httpx2.Response, *, method: str) -> YnabError:
    """The `YnabError` for a non-2xx answer, from YNAB's error envelope when there is one."""
    error_id, name, detail = _envelope(response)
    return error_for_status(response.status_code, error_id, name, detail, method=method)


def _envelope(response: httpx2.Response) -> tuple[str | None, str | None, str | None]:
    """YNAB's `{"error": {"id", "name", "detail"}}`, or Nones when the body is something else."""
    try:
        error = response.json()["error"]
        return str(error["id"]), str(error.get("name") or "") or None, error.get("detail")
    except (ValueError, KeyError, TypeError):
        return None, None, None


def _reason(exc: Exception) -> str:
    for kind, reason in _REASONS.items():
        if isinstance(exc, kind):
            return reason
    return f"a network error ({type(exc).__name__})"


def _unknown_outcome(call: ApiCall, exc: Exception) -> UnknownOutcome:
    reason = _reason(exc)
    return UnknownOutcome(
        f"No answer came back from YNAB for this change ({reason}): the change may or may not be "
        f"in YNAB. {call.check_hint or DEFAULT_CHECK_HINT} It was not sent again.",
        reason=reason,
    )


def _no_answer(exc: Exception) -> YnabError:
    return YnabError(
        f"YNAB did not answer ({_reason(exc)}) after {MAX_ATTEMPTS} attempts; try again in a few minutes.",
        retryable=True,
    )


# --- The client ---------------------------------------------------------------------------


def ynab_token_tag(token: str) -> str:
    """A short tag naming a token in rows and cache keys without revealing it."""
    return hashlib.sha256(f"avenir-mcp:{token}".encode()).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class PlanList:
    """`GET /plans`: the plans the token can see, and YNAB's default plan id (if any)."""

    plans: tuple[PlanSummary, ...]
    default_plan_id: str | None


_names_seen: dict[str, str] = {}
"""Plan id → name from every plan listing this process got (for the pages people read)."""
_names_lock = threading.Lock()


def plan_names_seen() -> dict[str, str]:
    """Plan id → name from the plan listings this process got (no request)."""
    with _names_lock:
        return dict(_names_seen)


class YnabClient:
    """YNAB's API v1 for one base URL and token. Safe to share across event loops."""

    def __init__(
        self,
        *,
        base_url: str,
        token: str,
        pacer: Pacer | None = None,
        delays: Sequence[float] = DEFAULT_DELAYS,
        transport: httpx2.AsyncBaseTransport | None = None,
        timeout: httpx2.Timeout = DEFAULT_TIMEOUT,
    ) -> None:
        self.base_url = check_base_url(base_url)
        self.token_tag = ynab_token_tag(token)
        self._token = token
        self._transport = transport
        self._timeout = timeout
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx2.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()
        self.sender = Sender(
            http=self._http,
            pacer=pacer or pacer_for(self.base_url, self.token_tag),
            token_tag=self.token_tag,
            host=httpx2.URL(self.base_url).netloc.decode(),
            delays=delays,
        )

    def __repr__(self) -> str:
        return f"YnabClient({self.base_url!r}, token {self.token_tag})"

    def last_write(self, plan_id: str) -> WriteMark | None:
        """What the last write to the plan (with this YNAB and key) left, if any: this process's,
        or any worker's with a shared store (`ynab_client.write_marks`)."""
        return write_marks.last_write((self.base_url, self.token_tag, plan_id))

    def forget_writes(self, plan_id: str) -> None:
        """Forget the writes to a plan YNAB started over (its knowledge went back)."""
        write_marks.forget_writes((self.base_url, self.token_tag, plan_id))

    def written_knowledge(self, plan_id: str) -> int:
        """The highest server_knowledge the writes to the plan reported (0: none):
        a snapshot older than this would not show them (see ynab_client.cache)."""
        mark = self.last_write(plan_id)
        return mark.knowledge if mark is not None else 0

    def _http(self) -> httpx2.AsyncClient:
        loop = asyncio.get_running_loop()
        with self._lock:
            http = self._per_loop.get(loop)
            if http is None:
                http = self._per_loop[loop] = self._new_http()
            return http

    def _new_http(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(
            base_url=self.base_url,
            headers={
                "Authorization": f"Bearer {self._token}",
                "Accept": "application/json",
                "User-Agent": "avenir-mcp",
            },
            timeout=self._timeout,
            follow_redirects=False,
            transport=self._transport,
            verify=tls_context(),
        )

    async def aclose(self) -> None:
        """Close this event loop's connections (others close with their loops)."""
        with self._lock:
            http = self._per_loop.pop(asyncio.get_running_loop(), None)
        if http is not None:
            await http.aclose()

    # --- plans -----------------------------------------------------------------------------

    async def get_plans(self, *, include_accounts: bool = False) -> PlanList:
        params = {"include_accounts": "true"} if include_accounts else None
        plans, default = parse_plan_summaries(await self._read("/plans", params))
        with _names_lock:
            _names_seen.update((plan.id, plan.name) for plan in plans if plan.name)
        return PlanList(plans, default)

    async def get_plan(self, plan_id: str, last_knowledge: int | None = None) -> Json:
        """The plan export (`{"plan", "server_knowledge"}`); a delta when `last_knowledge` is given."""
        params = None if last_knowledge is None else {"last_knowledge_of_server": int(last_knowledge)}
        return await self._read(plan_path(plan_id), params)

    # --- categories and months -----------------------------------------------------------

    async def get_categories(self, plan_id: str) -> Json:
        """`{"category_groups", "server_knowledge"}`: groups and their categories in YNAB's order."""
        return await self._read(f"{plan_path(plan_id)}/categories")

    async def post_category(self, plan_id: str, category: Json, *, check_hint: str | None = None) -> Json:
        """Create a category (`name`, `category_group_id`, optional note and target)."""
        path = f"{plan_path(plan_id)}/categories"
        return await self._write(
            plan_id, ApiCall("POST", path, body={"category": category}, check_hint=check_hint)
        )

    async def patch_category(
        self, plan_id: str, category_id: str, fields: Json, *, check_hint: str | None = None
    ) -> Json:
        """Update a category's name, note, group or target (`fields` as YNAB's SaveCategory)."""
        path = entity_path(plan_id, "categories", category_id, what="category")
        return await self._write(
            plan_id, ApiCall("PATCH", path, body={"category": fields}, check_hint=check_hint)
        )

    async def post_category_group(self, plan_id: str, name: str, *, check_hint: str | None = None) -> Json:
        """Create a category group (`name`, at most 50 characters)."""
        path = f"{plan_path(plan_id)}/category_groups"
        body = {"category_group": {"name": name}}
        return await self._write(plan_id, ApiCall("POST", path, body=body, check_hint=check_hint))

    async def patch_category_group(
        self, plan_id: str, category_group_id: str, name: str, *, check_hint: str | None = None
    ) -> Json:
        """Rename a category group."""
        path = entity_path(plan_id, "category_groups", category_group_id, what="category group")
        body = {"category_group": {"name": name}}
        return await self._write(plan_id, ApiCall("PATCH", path, body=body, check_hint=check_hint))

    async def get_month_category(self, plan_id: str, month: str | date, category_id: str) -> Json:
        return await self._read(self._month_category_path(plan_id, month, category_id))

    async def patch_month_category(
        self,
        plan_id: str,
        month: str | date,
        category_id: str,
        budgeted: int,
        *,
        check_hint: str | None = None,
    ) -> Json:
        """Set (not add to) what is assigned to a category in a month, in milliunits."""
        if type(budgeted) is not int:
            raise TypeError(f"budgeted is an int of milliunits, not {type(budgeted).__name__}")
        path = self._month_category_path(plan_id, month, category_id)
        body = {"category": {"budgeted": budgeted}}
        call = ApiCall("PATCH", path, body=body, check_hint=check_hint)
        return await self._write(plan_id, call)

    def _month_category_path(self, plan_id: str, month: str | date, category_id: str) -> str:
        category = entity_path(plan_id, "categories", category_id, what="category").rsplit("/", 1)[1]
        return f"{plan_path(plan_id)}/months/{month_segment(month)}/categories/{category}"

    async def get_money_movements(self, plan_id: str, month: str | date | None = None) -> Json:
        """`{"money_movements", "server_knowledge"}`: assignments moved between categories (or
        Ready to Assign), the whole plan's or one month's; not part of the plan export."""
        path = f"{plan_path(plan_id)}/money_movements"
        if month is not None:
            path = f"{plan_path(plan_id)}/months/{month_segment(month)}/money_movements"
        return await self._read(path)

    # --- accounts ------------------------------------------------------------------------

    async def post_account(self, plan_id: str, account: Json, *, check_hint: str | None = None) -> Json:
        """Open an account (`name`, `type`, `balance` in milliunits: YNAB enters the balance as a
        Starting Balance transaction dated today)."""
        path = f"{plan_path(plan_id)}/accounts"
        return await self._write(
            plan_id, ApiCall("POST", path, body={"account": account}, check_hint=check_hint)
        )

    # --- payees --------------------------------------------------------------------------

    async def patch_payee(
        self, plan_id: str, payee_id: str, name: str, *, check_hint: str | None = None
    ) -> Json:
        path = entity_path(plan_id, "payees", payee_id, what="payee")
        return await self._write(
            plan_id, ApiCall("PATCH", path, body={"payee": {"name": name}}, check_hint=check_hint)
        )

    # --- transactions --------------------------------------------------------------------

    async def post_transactions(
        self, plan_id: str, transactions: Sequence[Json], *, check_hint: str | None = None
    ) -> Json:
        """Create transactions; always the list form, so a known `import_id` is reported in
        `duplicate_import_ids` rather than refused with a 409."""
        body = {"transactions": list(transactions)}
        call = ApiCall("POST", f"{plan_path(plan_id)}/transactions", body=body, check_hint=check_hint)
        return await self._write(plan_id, call)

    async def patch_transactions(
        self, plan_id: str, items: Sequence[Json], *, check_hint: str | None = None
    ) -> Json:
        """Update many transactions; each item names its `id` (or `import_id`)."""
        body = {"transactions": list(items)}
        call = ApiCall("PATCH", f"{plan_path(plan_id)}/transactions", body=body, check_hint=check_hint)
        return await self._write(plan_id, call)

    async def put_transaction(
        self, plan_id: str, transaction_id: str, fields: Json, *, check_hint: str | None = None
    ) -> Json:
        path = entity_path(plan_id, "transactions", transaction_id, what="transaction")
        return await self._write(
            plan_id, ApiCall("PUT", path, body={"transaction": fields}, check_hint=check_hint)
        )

    async def delete_transaction(
        self, plan_id: str, transaction_id: str, *, check_hint: str | None = None
    ) -> Json:
        path = entity_path(plan_id, "transactions", transaction_id, what="transaction")
        return await self._write(plan_id, ApiCall("DELETE", path, check_hint=check_hint))

    async def import_transactions(self, plan_id: str, *, check_hint: str | None = None) -> Json:
        """Ask YNAB to import what linked banks hold; `{"transaction_ids"}` (may be empty)."""
        call = ApiCall("POST", f"{plan_path(plan_id)}/transactions/import", check_hint=check_hint)
        return await self._write(plan_id, call)

    # --- scheduled transactions ------------------------------------------------------------

    async def post_scheduled_transaction(
        self, plan_id: str, fields: Json, *, check_hint: str | None = None
    ) -> Json:
        """Create a scheduled transaction (`fields` as YNAB's SaveScheduledTransaction);
        `{"scheduled_transaction"}`."""
        path = f"{plan_path(plan_id)}/scheduled_transactions"
        body = {"scheduled_transaction": fields}
        return await self._write(plan_id, ApiCall("POST", path, body=body, check_hint=check_hint))

    async def put_scheduled_transaction(
        self, plan_id: str, scheduled_transaction_id: str, fields: Json, *, check_hint: str | None = None
    ) -> Json:
        """Replace a scheduled transaction's fields (every field: what is left out is cleared)."""
        path = entity_path(
            plan_id, "scheduled_transactions", scheduled_transaction_id, what="scheduled transaction"
        )
        body = {"scheduled_transaction": fields}
        return await self._write(plan_id, ApiCall("PUT", path, body=body, check_hint=check_hint))

    async def delete_scheduled_transaction(
        self, plan_id: str, scheduled_transaction_id: str, *, check_hint: str | None = None
    ) -> Json:
        path = entity_path(
            plan_id, "scheduled_transactions", scheduled_transaction_id, what="scheduled transaction"
        )
        return await self._write(plan_id, ApiCall("DELETE", path, check_hint=check_hint))

    # --- sending -------------------------------------------------------------------------

    async def _read(self, path: str, params: dict[str, Any] | None = None) -> Json:
        response = await self.sender.send(ApiCall("GET", path, params=params))
        if len(response.content) > _OFF_LOOP_BYTES:
            # A full export is megabytes of JSON: decode it in a thread so the event loop
            # (which may be serving the sandbox, or other tool calls) never stalls on it.
            return await anyio.to_thread.run_sync(_data, response)
        return _data(response)

    async def _write(self, plan_id: str, call: ApiCall) -> Json:
        knowledge = None
        try:
            data = _data(await self.sender.send(call), write=True)
            knowledge = data.get("server_knowledge")
            return data
        finally:
            # Whatever the outcome (a lost answer may still have changed the plan), the plan
            # cache's freshness window for this plan ends here.
            self._mark_write(plan_id, knowledge if isinstance(knowledge, int) else 0)

    def _mark_write(self, plan_id: str, knowledge: int) -> None:
        write_marks.mark_write((self.base_url, self.token_tag, plan_id), knowledge)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The certificate-checking TLS context every client shares: loading the CA bundle takes
    ~0.1 s, which a new process does once, at start-up (`prepare_transport`), rather than in
    its first call. The bundle is the system's (OpenSSL's own paths, or SSL_CERT_FILE /
    SSL_CERT_DIR when set): httpx2 trusts what the machine trusts, not a copy of its own."""
    return httpx2.create_ssl_context()


def prepare_transport() -> None:
    """What a process's first request would otherwise do on its way (~0.1 s): load the CA
    bundle and httpx2's transport modules (imported at the first client). Called at warm-up."""
    httpx2.AsyncHTTPTransport(verify=tls_context())  # imports httpcore2; opens nothing


def _data(response: httpx2.Response, write: bool = False) -> Json:
    """The `data` member of a 2xx answer."""
    try:
        data = response.json()["data"]
        if isinstance(data, dict):
            return data
    except (ValueError, KeyError, TypeError):
        pass
    if write:
        raise MalformedAnswer(
            f"YNAB accepted the change ({response.status_code}) but its answer could not be read; "
            "read the plan again to see the result before doing anything else.",
            status=response.status_code,
        )
    raise MalformedAnswer(
        f"YNAB's answer ({response.status_code}) could not be read as YNAB's JSON; try again later.",
        status=response.status_code,
    )


_clients: dict[tuple[str, str], YnabClient] = {}
_clients_lock = threading.Lock()
_in_process: httpx2.AsyncBaseTransport | None = None


def get_ynab_client() -> YnabClient:
    """The client for the configured YNAB, shared by the process (settings read on each call)."""
    base_url = settings.AVENIR_MCP_YNAB_URL
    token = settings.YNAB_API_KEY or settings.SANDBOX_TOKEN
    with _clients_lock:
        client = _clients.get((base_url, token))
        if client is None:
            client = YnabClient(base_url=base_url, token=token, transport=_in_process)
            _clients[(base_url, token)] = client
        return client


class InProcessTransport(httpx2.ASGITransport):
    """Requests answered by an ASGI application in this process, as a server would answer them:
    an exception in the application is a 500, an answer it leaves unfinished is a broken
    connection (`httpx2.RemoteProtocolError`, as over a socket)."""

    def __init__(self, app: Any) -> None:
        super().__init__(app=app, raise_app_exceptions=False)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            return await super().handle_async_request(request)
        except AssertionError as unfinished:  # httpx2's check that the answer was complete
            raise httpx2.RemoteProtocolError(
                "the answer ended before it was complete", request=request
            ) from unfinished


def serve_in_process(app: Any) -> None:
    """Send the configured YNAB's requests to `app`, an ASGI application in this process, instead
    of over the network: `mcp_stdio` with the embedded sandbox needs no running web server."""
    global _in_process
    with _clients_lock:
        _in_process = InProcessTransport(app)
        _clients.clear()
