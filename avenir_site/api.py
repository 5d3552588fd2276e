"""The project's HTTP API at /api (django-ninja; OpenAPI docs at /api/docs).

One router per app is added here; this module owns only the API object and /api/health.
"""

from __future__ import annotations

from django.db import connection
from ninja import NinjaAPI, Schema

api = NinjaAPI(
    title="avenir-mcp",
    version="1",
    description="Health and the audit API of avenir-mcp (operations, confirmations).",
    urls_namespace="api",
)
api.add_router("/operations", "tools.api.router")
api.add_router("/confirmations", "confirmations.api.router")


class Health(Schema):
    status: str
    database: str


@api.get("/health", response=Health, tags=["health"], summary="Is the service up?")
def health(request) -> Health:
    """Answers 200 while the service runs and its database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return Health(status="ok", database=connection.vendor)
