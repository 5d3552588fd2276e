"""The sandbox's test and demo hooks, as JSON: the request log and fault injection.

- `GET /sandbox/_requests`: the request log, newest first; `?since_id=N` gives only entries
  after N, oldest first (count what happened after a point); `?limit=` (default 100, at
  most 1000). Always served: it holds no secret (tokens appear as tags only).
- `/sandbox/_faults`: `GET` lists faults, `POST {"kind","method","path","status","delay_ms",
  "count"}` creates one (201), `DELETE` clears them all. Exists only while
  `settings.SANDBOX_FAULTS_ENABLED` is true (read per request): 404 otherwise.

Neither needs the sandbox token, and neither is in the request log (they are outside
/sandbox/v1, which is all the traffic layer sees).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET
from pydantic import BaseModel, ConfigDict
from pydantic import ValidationError as PayloadError

from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.api.http import ApiError, authenticate, render
from avenir_mcp.sandbox.models import Fault, RequestLogEntry

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


class FaultRequest(BaseModel):
    """What `POST /sandbox/_faults` accepts: `sandbox.faults.inject`'s arguments, strictly typed."""

    model_config = ConfigDict(extra="forbid", strict=True)

    kind: str
    method: str = ""
    path: str = ""
    status: int | None = None
    delay_ms: int = 0
    count: int = 1


@require_GET
def request_log(request: HttpRequest) -> JsonResponse:
    try:
        since_id = _whole_number(request, "since_id", default=None, maximum=None)
        limit = _whole_number(request, "limit", default=DEFAULT_LIMIT, maximum=MAX_LIMIT, minimum=1)
    except ValueError as error:
        return _bad_request(str(error))
    if since_id is None:
        entries = RequestLogEntry.objects.order_by("-id")[:limit]
    else:
        entries = RequestLogEntry.objects.filter(id__gt=since_id).order_by("id")[:limit]
    return JsonResponse({"requests": [_entry_as_json(entry) for entry in entries]})


@csrf_exempt
def fault_list(request: HttpRequest) -> HttpResponse:
    if not settings.SANDBOX_FAULTS_ENABLED:
        raise Http404("Fault injection is off (SANDBOX_FAULTS).")
    try:
        authenticate(request)
    except ApiError as error:
        return render(error.body, error.status)
    if request.method == "GET":
        return JsonResponse({"faults": [_fault_as_json(fault) for fault in Fault.objects.order_by("id")]})
    if request.method == "POST":
        return _create_fault(request)
    if request.method == "DELETE":
        deleted, _by_model = Fault.objects.all().delete()
        return JsonResponse({"deleted": deleted})
    return HttpResponseNotAllowed(["GET", "POST", "DELETE"])


def _create_fault(request: HttpRequest) -> JsonResponse:
    try:
        wanted = FaultRequest.model_validate_json(request.body or b"{}")
        fault = faults.inject(**wanted.model_dump())
    except PayloadError as error:
        return _bad_request("; ".join(_payload_problem(problem) for problem in error.errors()))
    except ValidationError as error:
        return _bad_request(" ".join(error.messages))
    return JsonResponse({"fault": _fault_as_json(fault)}, status=201)


def _payload_problem(problem: dict) -> str:
    where = ".".join(str(part) for part in problem["loc"]) or "body"
    return f"{where}: {problem['msg']}"


def _whole_number(
    request: HttpRequest, name: str, *, default: int | None, maximum: int | None, minimum: int = 0
) -> int | None:
    raw = request.GET.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or int(raw) < minimum or (maximum is not None and int(raw) > maximum):
        upper = f" to {maximum}" if maximum is not None else " or more"
        raise ValueError(f"{name} must be a whole number from {minimum}{upper}, not {raw!r}.")
    return int(raw)


def _bad_request(detail: str) -> JsonResponse:
    return JsonResponse({"error": {"id": "400", "name": "bad_request", "detail": detail}}, status=400)


def _entry_as_json(entry: RequestLogEntry) -> dict:
    return {
        "id": entry.id,
        "created_at": entry.created_at.isoformat(),
        "method": entry.method,
        "path": entry.path,
        "query": entry.query,
        "status": entry.status,
        "duration_ms": entry.duration_ms,
        "token_tag": entry.token_tag,
        "fault": entry.fault,
    }


def _fault_as_json(fault: Fault) -> dict:
    return {
        "id": fault.id,
        "kind": fault.kind,
        "method": fault.method,
        "path": fault.path_pattern,
        "status": fault.status,
        "delay_ms": fault.delay_ms,
        "remaining": fault.remaining,
        "created_at": fault.created_at.isoformat(),
    }
