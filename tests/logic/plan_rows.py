"""Small plans for the pure tests of lists and search, built the way the client builds them:
YNAB-shaped rows parsed and indexed by `ynab_client` (so the indexes are the real ones)."""

from __future__ import annotations

from typing import Any

from avenir_mcp.ynab_client.cache import apply_delta
from avenir_mcp.ynab_client.snapshot import CurrencyFormat, PlanSnapshot, parse_plan_delta

Row = dict[str, Any]


def currency(decimal_digits: Any = 2, decimal_separator: Any = ".") -> CurrencyFormat:
    """A plan's currency format as the snapshot holds it; the fields the money text does not
    read are USD's. YNAB's data is not checked on parsing, so any value may come."""
    return CurrencyFormat(
        iso_code="USD", example_format="123,456.78", decimal_digits=decimal_digits,
        decimal_separator=decimal_separator, symbol_first=True, group_separator=",",
        currency_symbol="$", display_symbol=True,
    )  # fmt: skip


def account(id: str, name: str = "Checking", **fields: Any) -> Row:
    return {
        "id": id, "name": name, "type": "checking", "on_budget": True, "closed": False, "note": None,
        "balance": 0, "cleared_balance": 0, "uncleared_balance": 0, "transfer_payee_id": None,
        "direct_import_linked": False, "direct_import_in_error": False, "last_reconciled_at": None,
        "debt_original_balance": None, "debt_interest_rates": {}, "debt_minimum_payments": {},
        "debt_escrow_amounts": {}, "deleted": False, **fields,
    }  # fmt: skip


def group(id: str, name: str, **fields: Any) -> Row:
    return {"id": id, "name": name, "hidden": False, "internal": False, "deleted": False, **fields}


def category(id: str, group_id: str, name: str, **fields: Any) -> Row:
    return {
        "id": id, "category_group_id": group_id, "category_group_name": None, "name": name,
        "hidden": False, "internal": False, "original_category_group_id": None, "note": None,
        "budgeted": 0, "activity": 0, "balance": 0, "goal_type": None, "goal_needs_whole_amount": None,
        "goal_day": None, "goal_cadence": None, "goal_cadence_frequency": None,
        "goal_creation_month": None, "goal_target": None, "goal_target_month": None,
        "goal_target_date": None, "goal_percentage_complete": None, "goal_months_to_budget": None,
        "goal_under_funded": None, "goal_overall_funded": None, "goal_overall_left": None,
        "goal_snoozed_at": None, "deleted": False, **fields,
    }  # fmt: skip


def payee(id: str, name: str, **fields: Any) -> Row:
    return {"id": id, "name": name, "transfer_account_id": None, "deleted": False, **fields}


def transaction(id: str, account_id: str, date: str, amount: int, **fields: Any) -> Row:
    return {
        "id": id, "date": date, "amount": amount, "memo": None, "cleared": "cleared", "approved": True,
        "flag_color": None, "flag_name": None, "account_id": account_id, "payee_id": None,
        "category_id": None, "transfer_account_id": None, "transfer_transaction_id": None,
        "matched_transaction_id": None, "import_id": None, "import_payee_name": None,
        "import_payee_name_original": None, "debt_transaction_type": None, "deleted": False, **fields,
    }  # fmt: skip


def line(id: str, transaction_id: str, amount: int, **fields: Any) -> Row:
    return {
        "id": id, "transaction_id": transaction_id, "amount": amount, "memo": None, "payee_id": None,
        "payee_name": None, "category_id": None, "category_name": None, "transfer_account_id": None,
        "transfer_transaction_id": None, "deleted": False, **fields,
    }  # fmt: skip


def scheduled(id: str, account_id: str, date_next: str, amount: int, **fields: Any) -> Row:
    return {
        "id": id, "date_first": fields.pop("date_first", date_next), "date_next": date_next,
        "frequency": "monthly", "amount": amount, "memo": None, "flag_color": None, "flag_name": None,
        "account_id": account_id, "payee_id": None, "category_id": None, "transfer_account_id": None,
        "deleted": False, **fields,
    }  # fmt: skip


def scheduled_line(id: str, scheduled_id: str, amount: int, **fields: Any) -> Row:
    return {
        "id": id, "scheduled_transaction_id": scheduled_id, "amount": amount, "memo": None,
        "payee_id": None, "payee_name": None, "category_id": None, "category_name": None,
        "transfer_account_id": None, "deleted": False, **fields,
    }  # fmt: skip


def snapshot(**rows: list[Row]) -> PlanSnapshot:
    """A plan holding these rows (kinds as YNAB names them: accounts, transactions, ...)."""
    plan = {
        "id": "plan-1", "name": "Test plan", "last_modified_on": None, "first_month": "2026-01-01",
        "last_month": "2026-12-01", "date_format": None, "currency_format": None, "months": [],
        "accounts": [], "category_groups": [], "categories": [], "payees": [], "payee_locations": [],
        "transactions": [], "subtransactions": [], "scheduled_transactions": [],
        "scheduled_subtransactions": [], **rows,
    }  # fmt: skip
    return apply_delta(None, parse_plan_delta({"plan": plan, "server_knowledge": 1}))
