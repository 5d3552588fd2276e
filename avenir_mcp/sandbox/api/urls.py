"""Routes of the sandbox's YNAB API v1, under /sandbox/v1/: every operation of YNAB's spec.

Every plan-scoped operation is served twice: under `plans/<plan_id>/` (spec 1.79+) and
under the older `budgets/<plan_id>/`, whose answers use the old member names. Anything
else answers 404.1 (401 first, without the token).

Plain Django views (`sandbox.api.http.route`), not django-ninja: ninja answers a method a
path lacks with its own bare 405 and pydantic's own wording, where YNAB answers 404.1 and
400s whose detail names the field in its own words (`sandbox.api.fields`).
"""

from __future__ import annotations

from django.urls import path, re_path

from avenir_mcp.sandbox.api import (
    accounts,
    categories,
    category_writes,
    export,
    months,
    payees,
    plans,
    scheduled,
    transaction_reads,
    transaction_writes,
)
from avenir_mcp.sandbox.api.http import route

# (path after plans/<plan_id>, view); "" is the plan itself.
PLAN_ROUTES = [
    ("", route(get=export.get_plan)),
    ("/settings", route(get=plans.get_settings)),
    ("/accounts", route(get=accounts.list_accounts, post=accounts.create_account)),
    ("/accounts/<str:account_id>", route(get=accounts.get_account)),
    ("/accounts/<str:account_id>/transactions", route(get=transaction_reads.list_by_account)),
    ("/categories", route(get=categories.list_categories, post=category_writes.create)),
    ("/categories/<str:category_id>", route(get=categories.get_category, patch=category_writes.update)),
    ("/categories/<str:category_id>/transactions", route(get=transaction_reads.list_by_category)),
    ("/category_groups", route(post=category_writes.create_group)),
    ("/category_groups/<str:category_group_id>", route(patch=category_writes.update_group)),
    ("/months", route(get=months.list_months)),
    ("/months/<str:month>", route(get=months.get_month)),
    (
        "/months/<str:month>/categories/<str:category_id>",
        route(get=categories.get_month_category, patch=category_writes.update_month),
    ),
    ("/months/<str:month>/transactions", route(get=transaction_reads.list_by_month)),
    ("/months/<str:month>/money_movements", route(get=months.list_money_movements)),
    ("/months/<str:month>/money_movement_groups", route(get=months.list_money_movement_groups)),
    ("/money_movements", route(get=months.list_money_movements)),
    ("/money_movement_groups", route(get=months.list_money_movement_groups)),
    ("/payees", route(get=payees.list_payees, post=payees.create_payee)),
    ("/payees/<str:payee_id>", route(get=payees.get_payee, patch=payees.update_payee)),
    ("/payees/<str:payee_id>/payee_locations", route(get=payees.list_locations_of_payee)),
    ("/payees/<str:payee_id>/transactions", route(get=transaction_reads.list_by_payee)),
    ("/payee_locations", route(get=payees.list_payee_locations)),
    ("/payee_locations/<str:payee_location_id>", route(get=payees.get_payee_location)),
    (
        "/transactions",
        route(
            get=transaction_reads.list_transactions,
            post=transaction_writes.create,
            patch=transaction_writes.update_many,
        ),
    ),
    ("/transactions/import", route(post=transaction_writes.import_transactions)),
    (
        "/transactions/<str:transaction_id>",
        route(
            get=transaction_reads.get_transaction,
            put=transaction_writes.update_one,
            delete=transaction_writes.delete,
        ),
    ),
    ("/scheduled_transactions", route(get=scheduled.list_scheduled, post=scheduled.create_scheduled)),
    (
        "/scheduled_transactions/<str:scheduled_transaction_id>",
        route(
            get=scheduled.get_scheduled,
            put=scheduled.update_scheduled,
            delete=scheduled.delete_scheduled,
        ),
    ),
]

urlpatterns = [
    path("user", route(get=plans.get_user)),
    path("plans", route(get=plans.list_plans)),
    path("budgets", route(get=plans.list_plans), {"legacy": True}),
]
for suffix, view in PLAN_ROUTES:
    urlpatterns.append(path(f"plans/<str:plan_id>{suffix}", view))
    urlpatterns.append(path(f"budgets/<str:plan_id>{suffix}", view, {"legacy": True}))
urlpatterns.append(re_path(r"", route()))  # anything else: 404.1
