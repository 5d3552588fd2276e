"""ASGI wrapper around the sandbox's YNAB API: the request log, the rate limit and faults.

Only requests under /sandbox/v1/ pass through it; everything else reaches Django untouched.
For each API request, in order:

1. the rate-limit emulation (when `settings.SANDBOX_RATE_LIMIT` > 0, read per request)
   admits it or answers 429 with YNAB's body and `Retry-After`; while it is on, every
   answer carries `X-Rate-Limit: <used>/<limit>`;
2. the oldest injected fault matching it (`sandbox.faults`) is claimed, one use, and acts:
   `status` answers an error without running the request, `delay` reads the request, waits,
   then runs it to the end even if the client gave up meanwhile (its write lands late),
   `drop_after_write` runs it, then ends the connection with no complete answer,
   `drop_before_write` ends the connection with no complete answer without running it;
3. its `RequestLogEntry` is written before the last part of the answer is sent, so a
   client that has read its answer always finds the row (one INSERT, off the event loop).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import MutableMapping
from http import HTTPStatus
from typing import Any

from django.conf import settings

from avenir_mcp.sandbox.faults import claim_fault
from avenir_mcp.sandbox.models import Fault, RequestLogEntry
from avenir_mcp.sandbox.traffic_limit import rate_limiter
from avenir_mcp.sandbox.traffic_log import bearer_token, token_tag, write_entry
from avenir_mcp.sandbox.traffic_worker import database_worker

logger = logging.getLogger(__name__)

API_ROOT = "/sandbox/v1"
CLIENT_GONE = 499  # logged when the client left before any answer started (nginx's code)
UNRUN_DROPPED = 502  # what the head of an answer dropped before running the request says
INJECTED_RETRY_AFTER = 60  # seconds, for an injected 429 that names none

# YNAB's error ids and names (YNAB's API documentation, https://api.ynab.com/#errors); other statuses get
# their HTTP phrase.
YNAB_ERRORS = {
    400: ("400", "bad_request"),
    401: ("401", "unauthorized"),
    403: ("403.1", "subscription_lapsed"),
    404: ("404.2", "resource_not_found"),
    409: ("409", "conflict"),
    429: ("429", "too_many_requests"),
    500: ("500", "internal_server_error"),
    502: ("502", "service_unavailable"),
    503: ("503", "service_unavailable"),
    504: ("504", "service_unavailable"),
}

Message = dict[str, Any]
Scope = MutableMapping[str, Any]  # what an ASGI server passes (a dict, typed as starlette does)
Headers = list[tuple[bytes, bytes]]


def ynab_error_body(status: int, detail: str) -> dict[str, dict[str, str]]:
    """YNAB's error envelope for `status`."""
    error_id, name = YNAB_ERRORS.get(status) or (str(status), _snake_phrase(status))
    return {"error": {"id": error_id, "name": name, "detail": detail}}


def _snake_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")
    except ValueError:
        return "error"


class SandboxTraffic:
    """Wraps the Django application; see the module's docstring for what it adds."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == API_ROOT or path.startswith(API_ROOT + "/")):
            await _Exchange(scope, send).run(self.app, receive)
        else:
            await self.app(scope, receive, send)


class _Exchange:
    """One API request on its way through the traffic layer, and what its log row will say."""

    def __init__(self, scope: Scope, send: Any) -> None:
        self.scope = scope
        self.client_send = send
        self.started = time.perf_counter()
        self.tag = token_tag(bearer_token(scope.get("headers", [])))
        self.status = CLIENT_GONE
        self.answer_started = False
        self.fault_label = ""
        self.extra_headers: Headers = []
        self.logged = False

    async def run(self, app: Any, receive: Any) -> None:
        try:
            await self._run(app, receive)
        except Exception:
            if not self.answer_started:
                self.status = 500  # what uvicorn answers for an application that raised
            raise
        finally:
            await self._log()  # a no-op when the row was written before the answer ended

    async def _run(self, app: Any, receive: Any) -> None:
        limit = settings.SANDBOX_RATE_LIMIT
        if limit > 0 and not await self._admit(limit):
            return
        fault = await database_worker.run(claim_fault, self.scope["method"], self.scope["path"])
        if fault is None:
            await app(self.scope, receive, self._send_from_app)
            return
        self.fault_label = f"{fault.kind} #{fault.pk}"
        if fault.kind == Fault.KIND_STATUS:
            await self._answer_fault_status(fault)
        elif fault.kind == Fault.KIND_DELAY:
            held = await _received_whole(receive)
            await asyncio.sleep(fault.delay_ms / 1000)
            await app(self.scope, held, self._send_from_app)
        elif fault.kind == Fault.KIND_DROP_BEFORE:
            await self._drop_without_running()
        else:
            await self._run_and_drop_answer(app, receive)

    async def _admit(self, limit: int) -> bool:
        admission = rate_limiter.admit(self.tag, limit)
        self.extra_headers.append((b"x-rate-limit", admission.header.encode()))
        if admission.admitted:
            return True
        self.fault_label = "rate_limit"
        detail = (
            f"Too many requests: the sandbox allows {limit} requests per hour per token. "
            f"Try again in {admission.retry_after} seconds."
        )
        await self._answer(429, ynab_error_body(429, detail), retry_after=admission.retry_after)
        return False

    async def _answer_fault_status(self, fault: Fault) -> None:
        status = fault.status or 500
        detail = f"{_phrase(status)} (a fault injected in the sandbox; the request was not run)."
        retry_after = None
        if status == 429:
            retry_after = math.ceil(fault.delay_ms / 1000) or INJECTED_RETRY_AFTER
        await self._answer(status, ynab_error_body(status, detail), retry_after=retry_after)

    async def _answer(self, status: int, body: dict, *, retry_after: int | None = None) -> None:
        """Answer JSON ourselves, without running the request."""
        payload = json.dumps(body).encode()
        headers = [
            (b"content-type", b"application/json; charset=utf-8"),
            (b"content-length", str(len(payload)).encode()),
        ]
        if retry_after is not None:
            headers.append((b"retry-after", str(retry_after).encode()))
        await self._send_from_app({"type": "http.response.start", "status": status, "headers": headers})
        await self._send_from_app({"type": "http.response.body", "body": payload})

    async def _send_from_app(self, message: Message) -> None:
        """Pass a message on, adding our headers to the start and logging before the end."""
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.answer_started = True
            message = {**message, "headers": [*message.get("headers", []), *self.extra_headers]}
        elif message["type"] == "http.response.body" and not message.get("more_body", False):
            await self._log()
        await self.client_send(message)

    async def _run_and_drop_answer(self, app: Any, receive: Any) -> None:
        """Run the request to completion, then send headers promising a body that never comes.

        Returning with the answer incomplete makes the server close the connection, so the
        client gets a transport error (not a status), as when a network drops an answer.
        """
        held = _HeldAnswer()
        await app(self.scope, receive, held.keep)
        self.status = held.status
        await self._log()
        if held.start is None:
            return
        logger.warning("Sandbox fault %s: dropping the answer to %s %s", self.fault_label, *self._request())
        self.answer_started = True
        headers = [*held.headers_promising_a_body(), *self.extra_headers]
        await self.client_send({**held.start, "headers": headers})

    async def _drop_without_running(self) -> None:
        """Never run the request; start an answer and break it off, as a network that fails.

        The client cannot tell this from `drop_after_write` (a transport error either way),
        which is the point: it must find out by reading the data back, and here it finds the
        write was not made. An ASGI application cannot close a connection before answering
        (uvicorn would answer 500 itself), so a head promising a body that never comes is sent.
        """
        self.status = UNRUN_DROPPED
        await self._log()
        logger.warning("Sandbox fault %s: dropping %s %s unrun", self.fault_label, *self._request())
        self.answer_started = True
        head = [(b"content-type", b"application/json; charset=utf-8"), (b"content-length", b"1")]
        await self.client_send(
            {"type": "http.response.start", "status": UNRUN_DROPPED, "headers": [*head, *self.extra_headers]}
        )

    async def _log(self) -> None:
        if self.logged:
            return
        self.logged = True
        method, path = self._request()
        entry = RequestLogEntry(
            method=method[:10],
            path=path[:500],
            query=self.scope.get("query_string", b"").decode("latin-1")[:500],
            status=self.status,
            duration_ms=round((time.perf_counter() - self.started) * 1000, 3),
            token_tag=self.tag,
            fault=self.fault_label[:40],
        )
        await write_entry(entry)

    def _request(self) -> tuple[str, str]:
        return self.scope["method"], self.scope["path"]


async def _received_whole(receive: Any) -> Any:
    """The request read in full now, and a `receive` replaying it that never reports the client
    leaving: a delayed request is one YNAB has received, and it runs to the end (its write lands)
    even when the client gave up waiting meanwhile, as a server that holds a request does."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            break

    async def replay() -> Message:
        if messages:
            return messages.pop(0)
        await asyncio.Event().wait()  # the client leaving is never noticed; cancelled when the answer ends
        raise AssertionError("unreachable")

    return replay


class _HeldAnswer:
    """The answer an application sent, kept back instead of reaching the client."""

    def __init__(self) -> None:
        self.start: Message | None = None
        self.status = CLIENT_GONE
        self.body_length = 0

    async def keep(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.start = message
            self.status = message["status"]
        elif message["type"] == "http.response.body":
            self.body_length += len(message.get("body", b""))

    def headers_promising_a_body(self) -> Headers:
        """The held headers with a Content-Length of at least 1, so no body is a short body."""
        held = self.start.get("headers", []) if self.start else []
        kept = [(name, value) for name, value in held if name.lower() != b"content-length"]
        return [*kept, (b"content-length", str(max(self.body_length, 1)).encode())]


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"Error {status}"
