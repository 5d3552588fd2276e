"""The project's HTTP API at /api (django-ninja; OpenAPI docs at /api/docs).

One router per app is added here; this module owns only the API object and /api/health.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection
from ninja import NinjaAPI, Schema

from avenir_mcp.ynab_client import ynab_status

api = NinjaAPI(
    title="avenir-mcp",
    version="1",
    description="Health and the audit API of avenir-mcp (operations, confirmations).",
    urls_namespace="api",
)
api.add_router("/operations", "avenir_mcp.oplog.api.router")
api.add_router("/confirmations", "avenir_mcp.confirmations.api.router")


class CachedPlan(Schema):
    plan_id: str
    server_knowledge: int
    loaded_at: datetime
    last_refresh_at: datetime
    counts: dict[str, int]


class YnabHealth(Schema):
    base_url: str
    token: str
    requests_last_hour: int
    limit: int | None
    paused_until: datetime | None
    cached_plans: list[CachedPlan]


class Health(Schema):
    status: str
    database: str
    ynab: YnabHealth


@api.get("/health", response=Health, tags=["health"], summary="Is the service up?")
def health(request) -> Health:
    """Answers 200 while the service runs and its database answers.

    `ynab`: requests sent to YNAB in the last hour (this service stops at `limit`, null
    against a sandbox, which is not paced; YNAB allows 200), the pause after a 429 if one
    runs, and the plans cached in this process (ids and figures only: this page needs no
    login, so plan names stay in the admin). It sends nothing to YNAB.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return Health(status="ok", database=connection.vendor, ynab=_ynab_health())


def _ynab_health() -> YnabHealth:
    status = ynab_status()
    plans = [
        CachedPlan(
            plan_id=plan.plan_id,
            server_knowledge=plan.server_knowledge,
            loaded_at=plan.loaded_at,
            last_refresh_at=plan.last_refresh_at,
            counts=plan.counts,
        )
        for plan in status.plans
    ]
    return YnabHealth(
        base_url=status.base_url,
        token=status.token,
        requests_last_hour=status.requests_last_hour,
        limit=status.limit,
        paused_until=status.paused_until,
        cached_plans=plans,
    )
