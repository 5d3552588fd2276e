"""The YNAB client: one method per endpoint the tools use, over one pooled httpx client.

`get_ynab_client()` gives the client for the configured YNAB (`AVENIR_MCP_YNAB_URL`, token
`YNAB_API_KEY` or the sandbox's), read when called, so a settings change takes effect.
A `YnabClient` keeps one `httpx.AsyncClient` per event loop (an AsyncClient must not
cross loops; uvicorn runs one, test suites many), with explicit timeouts (30 s, 10 s to
connect), no redirects, HTTPS required except on loopback.

Every method checks the ids it puts in the URL first (`IdError`, nothing sent), sends
through `tools.ynab.transport` (pacing, safe retries, a `YnabRequest` row per attempt) and
returns the `data` member of YNAB's answer: parsed types for plans and settings, YNAB's
JSON (`dict`) for the rest, amounts in milliunits. Failures raise `YnabError`
(`PacingRefused`, `UnknownOutcome`). Write methods take `check_hint`: the sentence the
`UnknownOutcome` message ends with, saying how to check (e.g. "Check with
find_transactions before trying again.").
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import ssl
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import anyio
import httpx
from django.conf import settings

from tools.ynab.entities import PlanSettings, PlanSummary
from tools.ynab.errors import YnabError
from tools.ynab.pacing import Pacer, pacer_for
from tools.ynab.parse import MalformedAnswer, parse_plan_summaries, parse_settings
from tools.ynab.paths import checked_base_url, entity_path, month_segment, plan_path
from tools.ynab.transport import DEFAULT_DELAYS, Call, Sender

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
_OFF_LOOP_BYTES = 1024 * 1024
ALIASES = frozenset({"last-used", "default"})  # plan ids YNAB resolves itself
Json = dict[str, Any]


def token_tag(token: str) -> str:
    """A short tag naming a token in rows and cache keys without revealing it."""
    return hashlib.sha256(f"avenir-mcp:{token}".encode()).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class WriteMark:
    """This process's writes to one plan: when the last one ended (`time.monotonic()`, sent or
    not, answered or not) and the highest server_knowledge their answers reported."""

    ended_at: float
    knowledge: int


# Per (base URL, token tag, plan id), for every client of the process.
_writes: dict[tuple[str, str, str], WriteMark] = {}
_writes_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class PlanList:
    """`GET /plans`: the plans the token can see, and YNAB's default plan id (if any)."""

    plans: tuple[PlanSummary, ...]
    default_plan_id: str | None


class YnabClient:
    """YNAB's API v1 for one base URL and token. Safe to share across event loops."""

    def __init__(
        self,
        *,
        base_url: str,
        token: str,
        pacer: Pacer | None = None,
        delays: Sequence[float] = DEFAULT_DELAYS,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
    ) -> None:
        self.base_url = checked_base_url(base_url)
        self.token_tag = token_tag(token)
        self._token = token
        self._transport = transport
        self._timeout = timeout
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()
        self.sender = Sender(
            http=self._http,
            pacer=pacer or pacer_for(self.base_url, self.token_tag),
            token_tag=self.token_tag,
            host=httpx.URL(self.base_url).netloc.decode(),
            delays=delays,
        )

    def __repr__(self) -> str:
        return f"YnabClient({self.base_url!r}, token {self.token_tag})"

    def last_write(self, plan_id: str) -> WriteMark | None:
        """What this process's last write to the plan (with this YNAB and key) left, if any."""
        with _writes_lock:
            return _writes.get((self.base_url, self.token_tag, plan_id))

    def forget_writes(self, plan_id: str) -> None:
        """Forget this process's writes to a plan YNAB started over (its knowledge went back)."""
        with _writes_lock:
            _writes.pop((self.base_url, self.token_tag, plan_id), None)

    def written_knowledge(self, plan_id: str) -> int:
        """The highest server_knowledge this process's writes to the plan reported (0: none):
        a snapshot older than this would not show them (see tools.ynab.cache)."""
        mark = self.last_write(plan_id)
        return mark.knowledge if mark is not None else 0

    def _http(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        with self._lock:
            http = self._per_loop.get(loop)
            if http is None:
                http = self._per_loop[loop] = self._new_http()
            return http

    def _new_http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
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
        return PlanList(plans, default)

    async def get_plan(self, plan_id: str, last_knowledge: int | None = None) -> Json:
        """The plan export (`{"plan", "server_knowledge"}`); a delta when `last_knowledge` is given."""
        params = None if last_knowledge is None else {"last_knowledge_of_server": int(last_knowledge)}
        return await self._read(plan_path(plan_id), params)

    async def get_settings(self, plan_id: str) -> PlanSettings:
        return parse_settings(await self._read(f"{plan_path(plan_id)}/settings"))

    # --- categories and months -----------------------------------------------------------

    async def get_categories(self, plan_id: str) -> Json:
        """`{"category_groups", "server_knowledge"}`: groups and their categories in YNAB's order."""
        return await self._read(f"{plan_path(plan_id)}/categories")

    async def get_category(self, plan_id: str, category_id: str) -> Json:
        """`{"category"}` with the current month's amounts."""
        return await self._read(entity_path(plan_id, "categories", category_id, what="category"))

    async def post_category(self, plan_id: str, category: Json, *, check_hint: str | None = None) -> Json:
        """Create a category (`name`, `category_group_id`, optional note and target)."""
        path = f"{plan_path(plan_id)}/categories"
        return await self._write(
            plan_id, Call("POST", path, body={"category": category}, check_hint=check_hint)
        )

    async def patch_category(
        self, plan_id: str, category_id: str, fields: Json, *, check_hint: str | None = None
    ) -> Json:
        """Update a category's name, note, group or target (`fields` as YNAB's SaveCategory)."""
        path = entity_path(plan_id, "categories", category_id, what="category")
        return await self._write(
            plan_id, Call("PATCH", path, body={"category": fields}, check_hint=check_hint)
        )

    async def get_month(self, plan_id: str, month: str | date) -> Json:
        """`{"month"}`: a month's totals and every category's figures for it."""
        return await self._read(f"{plan_path(plan_id)}/months/{month_segment(month)}")

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
        call = Call("PATCH", path, body=body, check_hint=check_hint)
        return await self._write(plan_id, call)

    def _month_category_path(self, plan_id: str, month: str | date, category_id: str) -> str:
        category = entity_path(plan_id, "categories", category_id, what="category").rsplit("/", 1)[1]
        return f"{plan_path(plan_id)}/months/{month_segment(month)}/categories/{category}"

    # --- payees --------------------------------------------------------------------------

    async def patch_payee(
        self, plan_id: str, payee_id: str, name: str, *, check_hint: str | None = None
    ) -> Json:
        path = entity_path(plan_id, "payees", payee_id, what="payee")
        return await self._write(
            plan_id, Call("PATCH", path, body={"payee": {"name": name}}, check_hint=check_hint)
        )

    # --- transactions --------------------------------------------------------------------

    async def get_transaction(self, plan_id: str, transaction_id: str) -> Json:
        return await self._read(entity_path(plan_id, "transactions", transaction_id, what="transaction"))

    async def post_transactions(
        self, plan_id: str, transactions: Sequence[Json], *, check_hint: str | None = None
    ) -> Json:
        """Create transactions; always the list form, so a known `import_id` is reported in
        `duplicate_import_ids` rather than refused with a 409."""
        body = {"transactions": list(transactions)}
        call = Call("POST", f"{plan_path(plan_id)}/transactions", body=body, check_hint=check_hint)
        return await self._write(plan_id, call)

    async def patch_transactions(
        self, plan_id: str, items: Sequence[Json], *, check_hint: str | None = None
    ) -> Json:
        """Update many transactions; each item names its `id` (or `import_id`)."""
        body = {"transactions": list(items)}
        call = Call("PATCH", f"{plan_path(plan_id)}/transactions", body=body, check_hint=check_hint)
        return await self._write(plan_id, call)

    async def put_transaction(
        self, plan_id: str, transaction_id: str, fields: Json, *, check_hint: str | None = None
    ) -> Json:
        path = entity_path(plan_id, "transactions", transaction_id, what="transaction")
        return await self._write(
            plan_id, Call("PUT", path, body={"transaction": fields}, check_hint=check_hint)
        )

    async def delete_transaction(
        self, plan_id: str, transaction_id: str, *, check_hint: str | None = None
    ) -> Json:
        path = entity_path(plan_id, "transactions", transaction_id, what="transaction")
        return await self._write(plan_id, Call("DELETE", path, check_hint=check_hint))

    async def import_transactions(self, plan_id: str, *, check_hint: str | None = None) -> Json:
        """Ask YNAB to import what linked banks hold; `{"transaction_ids"}` (may be empty)."""
        call = Call("POST", f"{plan_path(plan_id)}/transactions/import", check_hint=check_hint)
        return await self._write(plan_id, call)

    async def get_scheduled_transactions(self, plan_id: str, last_knowledge: int | None = None) -> Json:
        params = None if last_knowledge is None else {"last_knowledge_of_server": int(last_knowledge)}
        return await self._read(f"{plan_path(plan_id)}/scheduled_transactions", params)

    # --- sending -------------------------------------------------------------------------

    async def _read(self, path: str, params: dict[str, Any] | None = None) -> Json:
        response = await self.sender.send(Call("GET", path, params=params))
        if len(response.content) > _OFF_LOOP_BYTES:
            # A full export is megabytes of JSON: decode it in a thread so the event loop
            # (which may be serving the sandbox, or other tool calls) never stalls on it.
            return await anyio.to_thread.run_sync(_data, response)
        return _data(response)

    async def _write(self, plan_id: str, call: Call) -> Json:
        knowledge = None
        try:
            data = _data(await self.sender.send(call), write=True)
            knowledge = data.get("server_knowledge")
            return data
        finally:
            # Whatever the outcome (a lost answer may still have changed the plan), the plan
            # cache's freshness window for this plan ends here.
            self._wrote(plan_id, knowledge if isinstance(knowledge, int) else 0)

    def _wrote(self, plan_id: str, knowledge: int) -> None:
        key = (self.base_url, self.token_tag, plan_id)
        with _writes_lock:
            previous = _writes.get(key)
            _writes[key] = WriteMark(time.monotonic(), max(knowledge, previous.knowledge if previous else 0))


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The certificate-checking TLS context every client shares: loading the CA bundle takes
    ~0.1 s, which a new process does once, at start-up (`prepare_transport`), rather than in
    its first call."""
    return httpx.create_ssl_context()


def prepare_transport() -> None:
    """What a process's first request would otherwise do on its way (~0.1 s): load the CA
    bundle and httpx's transport modules (imported at the first client). Called at warm-up."""
    httpx.AsyncHTTPTransport(verify=tls_context())  # imports httpcore; opens nothing


def _data(response: httpx.Response, write: bool = False) -> Json:
    """The `data` member of a 2xx answer."""
    try:
        data = response.json()["data"]
        if isinstance(data, dict):
            return data
    except (ValueError, KeyError, TypeError):
        pass
    if write:
        raise YnabError(
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
_in_process: httpx.AsyncBaseTransport | None = None


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


class InProcessTransport(httpx.ASGITransport):
    """Requests answered by an ASGI application in this process, as a server would answer them:
    an exception in the application is a 500, an answer it leaves unfinished is a broken
    connection (`httpx.RemoteProtocolError`, as over a socket)."""

    def __init__(self, app: Any) -> None:
        super().__init__(app=app, raise_app_exceptions=False)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await super().handle_async_request(request)
        except AssertionError as unfinished:  # httpx's check that the answer was complete
            raise httpx.RemoteProtocolError("the answer ended before it was complete", request=request) from (
                unfinished
            )


def serve_in_process(app: Any) -> None:
    """Send the configured YNAB's requests to `app`, an ASGI application in this process, instead
    of over the network: `mcp_stdio` with the embedded sandbox needs no running web server."""
    global _in_process
    with _clients_lock:
        _in_process = InProcessTransport(app)
        _clients.clear()
