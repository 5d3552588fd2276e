"""Routes of the sandbox's YNAB API v1, under /sandbox/v1/.

Every plan-scoped operation is served twice: under `plans/<plan_id>/` (spec 1.79+) and
under the older `budgets/<plan_id>/`, whose answers use the old member names.
"""

from __future__ import annotations

from django.urls import path, re_path

from sandbox.api import plans
from sandbox.api.http import route, unknown_route

# (path after plans/<plan_id>, view); "" is the plan itself.
PLAN_ROUTES: list[tuple[str, object]] = [
    ("/settings", route(get=plans.get_settings)),
]

urlpatterns = [
    path("user", route(get=plans.get_user)),
    path("plans", route(get=plans.list_plans)),
    path("budgets", route(get=plans.list_plans), {"legacy": True}),
]
for suffix, view in PLAN_ROUTES:
    urlpatterns.append(path(f"plans/<str:plan_id>{suffix}", view))
    urlpatterns.append(path(f"budgets/<str:plan_id>{suffix}", view, {"legacy": True}))
urlpatterns.append(re_path(r"^(?P<rest>.*)$", unknown_route))
