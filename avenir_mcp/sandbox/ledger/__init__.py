"""The sandbox's ledger: every change to a plan's data goes through here, so the derived
figures (account balances, category activity per month, month rows, age of money) and the
delta-request stamps stay right. The arithmetic itself is `sandbox.budget_math` (pure).

Public API (what seeding and the API views call):

- `create_plan(*, name, first_month, plan_id=None, currency_format=None, date_format=None) -> Plan`
  A plan with the internal group "Internal Master Category" (internal=True) holding
  "Inflow: Ready to Assign", "Uncategorized" and the hidden split category (role "split",
  never listed), the "Credit Card Payments" group, Month rows from `first_month` through next
  month (UTC), USD currency format and MM/DD/YYYY dates unless given.

- `create_account(plan, *, name, type, on_budget=None, balance=0, date=None, **fields) -> Account`
  An account with its transfer payee "Transfer : <name>", a payment category in "Credit Card
  Payments" for an on-budget credit card, and a cleared, approved "Starting Balance"
  transaction dated `date` (default today, UTC) when `balance` is not 0: categorised
  "Inflow: Ready to Assign" on budget, except a card's debt (negative), which has no
  category and moves none. `on_budget` defaults by type: otherAsset, otherLiability and the
  loan types are tracking accounts. `fields` are any other `Account` fields
  (`direct_import_linked=True`, `note=...`, `closed=True`, ...).

- `rebuild_derived(plan) -> None`
  Recomputes every balance, every MonthCategory activity, the Month rows (extending
  first/last month to every month with figures, and through next month) and age of money
  from the plan's transactions; then stamps every entity of the plan with the plan's
  `server_knowledge` bumped once. Seeding bulk-creates rows (both legs of transfers, split
  parents and their Subtransaction rows, MonthCategory rows with `budgeted`, schedules) and
  calls this once at the end.

- `plan_write(plan_id)`: the write session every API write runs in (see `session`).

Change a plan's data through these functions or the API. After editing rows directly
(bulk seeding, a test arranging a state), call `rebuild_derived`: it recomputes the
figures and raises the knowledge, which also retires the month figures `budget` keeps.
"""

from __future__ import annotations

from avenir_mcp.sandbox.ledger.clock import utc_today
from avenir_mcp.sandbox.ledger.derived import rebuild_derived
from avenir_mcp.sandbox.ledger.session import PlanWrite, plan_write
from avenir_mcp.sandbox.ledger.setup import create_account, create_plan

__all__ = ["PlanWrite", "create_account", "create_plan", "plan_write", "rebuild_derived", "utc_today"]
