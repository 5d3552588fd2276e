"""The argument types read tools share, with the descriptions the agent reads.

Each is an `Annotated` type to use in a tool's signature with the tool's own default:

    async def find_transactions(
        since_date: DateArg, plan_id: PlanIdArg = None, limit: LimitArg = 50, cursor: CursorArg = None
    ) -> ...

The schema checks types and ranges (`limit` 1-200, list lengths, text lengths); ids,
months, dates and amounts are plain strings here and are checked in the tool body by
`tools.access` (`id_arg`, `month_arg`, `date_arg`, `amount_arg`), so a bad one gets a
one-line refusal that says what to give, rather than a schema error.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictFloat, StrictInt, StrictStr

from tools.paging import MAX_PAGE

MAX_IDS = 200

PlanIdArg = Annotated[
    str | None,
    Field(
        description="The plan: an id from list_plans, or last-used (the plan last opened in YNAB). "
        "Omitted: the default plan (is_default in list_plans)."
    ),
]

MonthArg = Annotated[
    str,
    Field(
        description="A month: current, next, YYYY-MM or YYYY-MM-01 (e.g. 2026-09), in the server's "
        "time zone. Results give it as YYYY-MM-01.",
        max_length=40,
    ),
]

DateArg = Annotated[str, Field(description="A date, YYYY-MM-DD.", max_length=40)]

OptionalDateArg = Annotated[str | None, Field(description="A date, YYYY-MM-DD.", max_length=40)]

LimitArg = Annotated[int, Field(ge=1, le=MAX_PAGE, description=f"Items per page, 1-{MAX_PAGE}.")]

CursorArg = Annotated[
    str | None,
    Field(
        description="next_cursor from the previous page of the same call (same filters); "
        "omit for the first page.",
        max_length=500,
    ),
]

AccountIdsArg = Annotated[
    list[str] | None,
    Field(
        description=f"Only these accounts: ids from list_accounts, at most {MAX_IDS} "
        "(an id given twice counts once). Omitted: every account.",
        max_length=MAX_IDS,
    ),
]

CategoryIdsArg = Annotated[
    list[str] | None,
    Field(
        description=f"Only these categories: ids from get_category_balances, at most {MAX_IDS} "
        "(an id given twice counts once). Omitted: every category.",
        max_length=MAX_IDS,
    ),
]

# Strict, so `true` is refused by the schema instead of becoming an amount of 1. Use
# `Annotated[AmountValue | None, Field(description=...)]` for an optional amount.
AmountValue = StrictStr | StrictInt | StrictFloat
AmountArg = Annotated[
    AmountValue,
    Field(
        description='An amount in currency units (not milliunits), as a decimal string like "-42.50" '
        "or a number; at most 3 decimals. Money out is negative, money in positive.",
    ),
]
