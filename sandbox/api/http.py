"""The plumbing every sandbox endpoint shares: bearer auth, method dispatch, plan ids,
JSON in and out, YNAB's error envelope, and the old `/budgets` member names.

A handler is a plain function `handler(call, **path_params) -> dict | Answer`; it raises
`ApiError` for anything YNAB answers with an error. `route(get=..., post=...)` turns handlers
into one Django view. A path parameter `plan_id` arrives resolved, as `plan` (a Plan).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from sandbox.api.errors import ApiError, bad_request, no_such_route, unauthorized
from sandbox.api.plans_lookup import resolve_plan

logger = logging.getLogger(__name__)

# /budgets/... keeps YNAB's member names from before the budgets -> plans rename (spec 1.79).
LEGACY_MEMBERS = {"plans": "budgets", "plan": "budget", "default_plan": "default_budget"}


@dataclass
class Answer:
    data: dict[str, Any]
    status: int = 200


@dataclass
class Call:
    """One request, as handlers see it."""

    request: HttpRequest
    legacy: bool

    def query(self, name: str) -> str | None:
        value = self.request.GET.get(name)
        return value if value not in (None, "") else None

    def body(self) -> dict[str, Any]:
        """The JSON object sent; 400 when the body is not one."""
        try:
            parsed = json.loads(self.request.body or b"null")
        except RequestDataTooBig:
            raise bad_request("request body is too large") from None
        except (ValueError, UnicodeDecodeError):
            raise bad_request("request body is not valid JSON") from None
        if not isinstance(parsed, dict):
            raise bad_request("request body must be a JSON object")
        return parsed


Handler = Callable[..., "dict[str, Any] | Answer"]


def route(**handlers: Handler) -> Callable[..., HttpResponse]:
    """One view for a path, dispatching on the HTTP method (get=, post=, put=, patch=, delete=)."""
    by_method = {method.upper(): handler for method, handler in handlers.items()}

    @csrf_exempt
    def view(request: HttpRequest, legacy: bool = False, **params: str) -> HttpResponse:
        call = Call(request, legacy)
        try:
            authenticate(request)
            handler = by_method.get(request.method or "")
            if handler is None:
                raise no_such_route()
            if "plan_id" in params:
                params["plan"] = resolve_plan(params.pop("plan_id"))
            answer = handler(call, **params)
        except ApiError as error:
            return render(error.body, error.status)
        except Exception:
            logger.exception("sandbox %s %s failed", request.method, request.path)
            return render(_internal_error(), 500)
        if not isinstance(answer, Answer):
            answer = Answer(answer)
        data = _legacy_names(answer.data) if legacy else answer.data
        return render({"data": data}, answer.status)

    return view


@csrf_exempt
def unknown_route(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Anything under /sandbox/v1/ that is not an operation: 401 without a token, else 404.1."""
    try:
        authenticate(request)
        raise no_such_route()
    except ApiError as error:
        return render(error.body, error.status)


def render(body: dict[str, Any], status: int) -> HttpResponse:
    # ASCII escapes and no cycle check: the C encoder's fastest path (a 30 MB export).
    content = json.dumps(body, separators=(",", ":"), check_circular=False)
    return HttpResponse(content, status=status, content_type="application/json; charset=utf-8")


def authenticate(request: HttpRequest) -> None:
    """`ApiError` 401 unless the request carries `Authorization: Bearer <SANDBOX_TOKEN>`."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    expected = settings.SANDBOX_TOKEN  # read per request: tests and settings may change it
    given = token.strip().encode()
    if scheme.lower() != "bearer" or not expected or not hmac.compare_digest(given, expected.encode()):
        raise unauthorized()


def _legacy_names(data: dict[str, Any]) -> dict[str, Any]:
    return {LEGACY_MEMBERS.get(key, key): value for key, value in data.items()}


def _internal_error() -> dict[str, Any]:
    return {"error": {"id": "500", "name": "internal_server_error", "detail": "Internal server error"}}
