"""Plan exports as YNAB writes them (the `data` of `GET /plans/{id}`), built from a small world.

`World` is a server's truth about one plan: entities by kind, each a JSON dict in YNAB's
shape. `export()` is what a full read returns; `delta_since(k)` what a delta request with
`last_knowledge_of_server=k` returns (changed entities, deleted ones flagged). Changing the
world stamps what changed with a new knowledge, as YNAB does.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]
KINDS = (
    "accounts",
    "category_groups",
    "categories",
    "payees",
    "payee_locations",
    "transactions",
    "subtransactions",
    "scheduled_transactions",
    "scheduled_subtransactions",
)
CURRENCY = {
    "iso_code": "EUR",
    "example_format": "123 456,78",
    "decimal_digits": 2,
    "decimal_separator": ",",
    "symbol_first": False,
    "group_separator": " ",
    "currency_symbol": "€",
    "display_symbol": True,
}


def account(id: str, *, name: str = "Checking", balance: int = 0) -> Json:
    return {
        "id": id, "name": name, "type": "checking", "on_budget": True, "closed": False, "note": None,
        "balance": balance, "cleared_balance": balance, "uncleared_balance": 0,
        "transfer_payee_id": None, "direct_import_linked": False, "direct_import_in_error": False,
        "last_reconciled_at": "2026-08-31T14:02:11.000Z", "debt_original_balance": None,
        "debt_interest_rates": {"2026-01-01": 4250}, "debt_minimum_payments": {}, "debt_escrow_amounts": {},
        "deleted": False,
    }  # fmt: skip


def category_group(id: str, *, name: str = "Bills") -> Json:
    return {"id": id, "name": name, "hidden": False, "internal": False, "deleted": False}


def category(id: str, group_id: str, *, name: str = "Rent", budgeted: int = 0) -> Json:
    return {
        "id": id, "category_group_id": group_id, "category_group_name": None, "name": name,
        "hidden": False, "internal": False, "original_category_group_id": None, "note": None,
        "budgeted": budgeted, "activity": 0, "balance": budgeted, "goal_type": "NEED",
        "goal_needs_whole_amount": True, "goal_day": 1, "goal_cadence": 1, "goal_cadence_frequency": 1,
        "goal_creation_month": "2026-01-01", "goal_target": 150000, "goal_target_month": None,
        "goal_target_date": "2026-10-01", "goal_percentage_complete": 50, "goal_months_to_budget": 1,
        "goal_under_funded": 1000, "goal_overall_funded": 2000, "goal_overall_left": 3000,
        "goal_snoozed_at": None, "deleted": False,
    }  # fmt: skip


def month(day: str, categories: list[Json], *, income: int = 0) -> Json:
    return {
        "month": day, "note": None, "income": income, "budgeted": 0, "activity": 0, "to_be_budgeted": 0,
        "age_of_money": 12, "deleted": False, "categories": categories,
    }  # fmt: skip


def payee(id: str, *, name: str = "Costco") -> Json:
    return {"id": id, "name": name, "transfer_account_id": None, "deleted": False}


def payee_location(id: str, payee_id: str) -> Json:
    return {"id": id, "payee_id": payee_id, "latitude": "48.85", "longitude": "2.35", "deleted": False}


def transaction(id: str, account_id: str, *, date: str, amount: int, category_id=None, payee_id=None) -> Json:
    return {
        "id": id, "date": date, "amount": amount, "memo": None, "cleared": "cleared", "approved": True,
        "flag_color": None, "flag_name": None, "account_id": account_id, "payee_id": payee_id,
        "category_id": category_id, "transfer_account_id": None, "transfer_transaction_id": None,
        "matched_transaction_id": None, "import_id": None, "import_payee_name": None,
        "import_payee_name_original": None, "debt_transaction_type": None, "deleted": False,
    }  # fmt: skip


def subtransaction(id: str, transaction_id: str, *, amount: int, category_id=None, payee_id=None) -> Json:
    return {
        "id": id, "transaction_id": transaction_id, "amount": amount, "memo": None, "payee_id": payee_id,
        "payee_name": None, "category_id": category_id, "category_name": None, "transfer_account_id": None,
        "transfer_transaction_id": None, "deleted": False,
    }  # fmt: skip


def scheduled_transaction(id: str, account_id: str, *, amount: int, date: str = "2026-12-01") -> Json:
    return {
        "id": id, "date_first": date, "date_next": date, "frequency": "monthly", "amount": amount,
        "memo": None, "flag_color": None, "flag_name": None, "account_id": account_id, "payee_id": None,
        "category_id": None, "transfer_account_id": None, "deleted": False,
    }  # fmt: skip


def scheduled_subtransaction(id: str, scheduled_id: str, *, amount: int) -> Json:
    return {
        "id": id, "scheduled_transaction_id": scheduled_id, "amount": amount, "memo": None,
        "payee_id": None, "payee_name": None, "category_id": None, "category_name": None,
        "transfer_account_id": None, "deleted": False,
    }  # fmt: skip


@dataclass
class World:
    """One plan on the server: every entity ever made (tombstones kept) and when it changed."""

    plan_id: str = "plan-1"
    knowledge: int = 1
    entities: dict[str, dict[str, Json]] = field(default_factory=lambda: {kind: {} for kind in KINDS})
    months: dict[str, Json] = field(default_factory=dict)
    month_categories: dict[str, dict[str, Json]] = field(default_factory=dict)
    stamps: dict[tuple[str, str], int] = field(default_factory=dict)

    def put(self, kind: str, entity: Json) -> None:
        self.entities[kind][entity["id"]] = copy.deepcopy(entity)
        self.stamps[(kind, entity["id"])] = self.knowledge

    def delete(self, kind: str, entity_id: str, *, reported: bool = True) -> None:
        """Delete an entity; `reported=False`: deltas will not mention it (only full reads know)."""
        if entity_id in self.entities[kind]:
            self.entities[kind][entity_id]["deleted"] = True
            if reported:
                self.stamps[(kind, entity_id)] = self.knowledge

    def put_month_category(self, day: str, entity: Json) -> None:
        self.months.setdefault(day, month(day, []))
        self.month_categories.setdefault(day, {})[entity["id"]] = copy.deepcopy(entity)
        self.stamps[("month", day)] = self.knowledge
        self.stamps[("month_category", day, entity["id"])] = self.knowledge

    def commit(self) -> int:
        """Close a write: later changes get the next knowledge."""
        self.knowledge += 1
        return self.knowledge - 1

    def export(self) -> Json:
        return self._answer(since=None)

    def delta_since(self, knowledge: int) -> Json:
        return self._answer(since=knowledge)

    def _answer(self, since: int | None) -> Json:
        plan: Json = {
            "id": self.plan_id, "name": "World", "last_modified_on": "2026-09-14T18:22:05.123Z",
            "first_month": "2026-01-01", "last_month": "2026-12-01",
            "date_format": {"format": "DD/MM/YYYY"}, "currency_format": CURRENCY,
        }  # fmt: skip
        for kind in KINDS:
            plan[kind] = [
                copy.deepcopy(entity)
                for entity_id, entity in self.entities[kind].items()
                if self._shown(since, (kind, entity_id), entity)
            ]
        plan["months"] = self._months(since)
        return {
            "plan": plan,
            "server_knowledge": self.knowledge - 1 if since is None else max(since, self.knowledge - 1),
        }

    def _months(self, since: int | None) -> list[Json]:
        shown = []
        for day, totals in self.months.items():
            if since is not None and self.stamps.get(("month", day), 0) <= since:
                continue
            categories = [
                copy.deepcopy(entity)
                for entity_id, entity in self.month_categories.get(day, {}).items()
                if since is None or self.stamps[("month_category", day, entity_id)] > since
            ]
            shown.append({**copy.deepcopy(totals), "categories": categories})
        return shown

    def _shown(self, since: int | None, stamp_key: tuple, entity: Json) -> bool:
        if since is None:
            return not entity["deleted"]
        return self.stamps[stamp_key] > since
