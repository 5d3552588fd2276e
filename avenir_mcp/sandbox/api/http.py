"""The plumbing every sandbox endpoint shares: bearer auth, method dispatch, plan ids in
paths, JSON in and out, YNAB's error envelope, and the old `/budgets` member names.

A handler is a plain function `handler(call: SandboxRequest, **path_params) -> dict | Answer`; it raises
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
from django.db.models import F
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from avenir_mcp.sandbox.ledger.rows import PreparedRows
from avenir_mcp.sandbox.models import Plan

logger = logging.getLogger(__name__)

# /budgets/... keeps YNAB's member names from before the budgets -> plans rename (spec 1.79).
LEGACY_MEMBERS = {"plans": "budgets", "plan": "budget", "default_plan": "default_budget"}
INTERNAL_ERROR = {"error": {"id": "500", "name": "internal_server_error", "detail": "Internal server error"}}
_JSON = "application/json; charset=utf-8"
# ASCII escapes and no cycle check: the C encoder's fastest path (a 30 MB export).
_FAST_JSON = {"separators": (",", ":"), "check_circular": False}


@dataclass
class Answer:
    data: dict[str, Any]
    status: int = 200


@dataclass
class SandboxRequest:
    """One request the sandbox received, as handlers see it (the client's side is `ApiCall`)."""

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
    """One view for a path, dispatching on the HTTP method (get=, post=, put=, patch=, delete=).

    Any other method is YNAB's 404.1 (401 first, without the token): `route()` with no handler
    at all serves every path that is not an operation.
    """
    by_method = {method.upper(): handler for method, handler in handlers.items()}

    @csrf_exempt
    def view(request: HttpRequest, legacy: bool = False, **params: str) -> HttpResponse:
        call = SandboxRequest(request, legacy)
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
            return render(INTERNAL_ERROR, 500)
        if not isinstance(answer, Answer):
            answer = Answer(answer)
        data = _legacy_names(answer.data) if legacy else answer.data
        return render({"data": data}, answer.status)

    return view


def render(body: dict[str, Any], status: int) -> JsonResponse:
    return JsonResponse(body, status=status, json_dumps_params=_FAST_JSON, content_type=_JSON)


def authenticate(request: HttpRequest) -> None:
    """`ApiError` 401 unless the request carries `Authorization: Bearer <SANDBOX_TOKEN>`."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    expected = settings.SANDBOX_TOKEN  # read per request: tests and settings may change it
    given = token.strip().encode()
    if scheme.lower() != "bearer" or not expected or not hmac.compare_digest(given, expected.encode()):
        raise unauthorized()


def _legacy_names(data: dict[str, Any]) -> dict[str, Any]:
    return {LEGACY_MEMBERS.get(key, key): value for key, value in data.items()}


# --- YNAB's error envelope: `{"error": {"id", "name", "detail"}}` with YNAB's ids ----------


class ApiError(Exception):
    """An answer YNAB gives instead of data; raised anywhere in a view, rendered once."""

    def __init__(self, status: int, error_id: str, name: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.body = {"error": {"id": error_id, "name": name, "detail": detail}}


def bad_request(detail: str, index: int | None = None) -> ApiError:
    """400, naming the field; `(index: N)` for the item of an array the problem is in."""
    suffix = f" (index: {index})" if index is not None else ""
    return ApiError(400, "400", "bad_request", detail + suffix)


def unauthorized() -> ApiError:
    return ApiError(401, "401", "unauthorized", "Unauthorized")


def not_found() -> ApiError:
    """404.2: an id that does not exist in this plan (or was deleted)."""
    return ApiError(404, "404.2", "resource_not_found", "Resource not found")


def no_such_route() -> ApiError:
    """404.1: the URI does not exist."""
    return ApiError(404, "404.1", "not_found", "Not found")


def conflict(detail: str) -> ApiError:
    return ApiError(409, "409", "conflict", detail)


# --- plan ids in paths: a plan's id, `last-used` (the plan opened most recently) or `default` ---


def resolve_plan(plan_id: str) -> Plan:
    """The plan a path names; 404.2 when there is none."""
    if plan_id == "last-used":
        plan = last_used_plan()
    elif plan_id == "default":
        plan = default_plan() or last_used_plan()
    else:
        plan = _plan_with_id(plan_id)
    if plan is None:
        raise not_found()
    return plan


_PLAN_FIELDS = [field.attname for field in Plan._meta.concrete_fields]
_PLAN = PreparedRows(lambda plan_id: Plan.objects.filter(pk=plan_id).values_list(*_PLAN_FIELDS))


def _plan_with_id(plan_id: str) -> Plan | None:
    """`Plan.objects.filter(pk=plan_id).first()`, from a query compiled once (every request asks)."""
    rows = _PLAN.fetch(plan_id)
    return Plan.from_db(_PLAN.alias, _PLAN_FIELDS, rows[0]) if rows else None


def last_used_plan() -> Plan | None:
    """The plan opened most recently; before any was opened, the newest plan."""
    ordering = (F("last_used_on").desc(nulls_last=True), "-created_at")
    return Plan.objects.order_by(*ordering).first()


def default_plan() -> Plan | None:
    """The plan marked default (YNAB: the OAuth app's default plan selection), if any."""
    return Plan.objects.filter(is_default=True).order_by("-created_at").first()


def mark_opened(plan: Plan) -> None:
    """Make `plan` the last-used one (a write only when another plan was opened since)."""
    if plan.last_used_on and not Plan.objects.filter(last_used_on__gt=plan.last_used_on).exists():
        return
    plan.last_used_on = timezone.now()
    Plan.objects.filter(pk=plan.pk).update(last_used_on=plan.last_used_on)
