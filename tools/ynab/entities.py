"""What a plan is made of, as the YNAB client hands it to tools: frozen, typed, in milliunits.

One class per entity kind of YNAB's plan export (`GET /plans/{id}`), with YNAB's field
names so the API documentation reads straight across. Every amount is an `int` of
milliunits; every date a `datetime.date`; every date-time an aware `datetime`. Deleted
entities never appear (the snapshot drops them), so there is no `deleted` field. Fields
YNAB marks deprecated (`debt_original_balance`, `original_category_group_id`,
`goal_target_month`) are left out.

These are slotted frozen dataclasses rather than pydantic models on purpose: a 50,000-
transaction plan is parsed on every cold start and kept in memory, and slots keep each
transaction at a few hundred bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime


@dataclass(frozen=True, slots=True)
class CurrencyFormat:
    iso_code: str
    example_format: str
    decimal_digits: int
    decimal_separator: str
    symbol_first: bool
    group_separator: str
    currency_symbol: str
    display_symbol: bool


@dataclass(frozen=True, slots=True)
class PlanSettings:
    """How the plan shows numbers and dates (YNAB may leave either unset)."""

    currency_format: CurrencyFormat | None
    date_format: str | None


@dataclass(frozen=True, slots=True)
class PlanSummary:
    """A plan as `GET /plans` lists it."""

    id: str
    name: str
    last_modified_on: datetime | None
    first_month: date | None
    last_month: date | None
    settings: PlanSettings


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str
    type: str
    on_budget: bool
    closed: bool
    note: str | None
    balance: int
    cleared_balance: int
    uncleared_balance: int
    transfer_payee_id: str | None
    direct_import_linked: bool
    direct_import_in_error: bool
    last_reconciled_at: datetime | None
    # YNAB's LoanAccountPeriodicValue: (date the value took effect, value) in date order.
    # Interest rates are in thousandths of a percent; payments and escrow in milliunits.
    debt_interest_rates: tuple[tuple[date, int], ...]
    debt_minimum_payments: tuple[tuple[date, int], ...]
    debt_escrow_amounts: tuple[tuple[date, int], ...]


@dataclass(frozen=True, slots=True)
class CategoryGroup:
    id: str
    name: str
    hidden: bool
    internal: bool


@dataclass(frozen=True, slots=True)
class Category:
    """A category; in `PlanSnapshot.categories` its amounts are for the current month.

    The same class carries a category's figures for one month (`month_category`).
    """

    id: str
    category_group_id: str
    category_group_name: str | None
    name: str
    hidden: bool
    internal: bool
    note: str | None
    budgeted: int
    activity: int
    balance: int
    goal_type: str | None
    goal_needs_whole_amount: bool | None
    goal_day: int | None
    goal_cadence: int | None
    goal_cadence_frequency: int | None
    goal_creation_month: date | None
    goal_target: int | None
    goal_target_date: date | None
    goal_percentage_complete: int | None
    goal_months_to_budget: int | None
    goal_under_funded: int | None
    goal_overall_funded: int | None
    goal_overall_left: int | None
    goal_snoozed_at: datetime | None


@dataclass(frozen=True, slots=True)
class Month:
    """A plan month's totals; its categories are in `PlanSnapshot.month_categories`."""

    month: date
    note: str | None
    income: int
    budgeted: int
    activity: int
    to_be_budgeted: int
    age_of_money: int | None


@dataclass(frozen=True, slots=True)
class Payee:
    id: str
    name: str
    transfer_account_id: str | None


@dataclass(frozen=True, slots=True)
class PayeeLocation:
    id: str
    payee_id: str
    latitude: str
    longitude: str


@dataclass(frozen=True, slots=True)
class Transaction:
    """A transaction as the export gives it: ids, no names; split lines are separate.

    `flag_color` keeps YNAB's difference between `None` (never flagged) and `""` (flag
    removed); both mean "no flag".
    """

    id: str
    date: date
    amount: int
    memo: str | None
    cleared: str
    approved: bool
    flag_color: str | None
    flag_name: str | None
    account_id: str
    payee_id: str | None
    category_id: str | None
    transfer_account_id: str | None
    transfer_transaction_id: str | None
    matched_transaction_id: str | None
    import_id: str | None
    import_payee_name: str | None
    import_payee_name_original: str | None
    debt_transaction_type: str | None


@dataclass(frozen=True, slots=True)
class Subtransaction:
    """One line of a split transaction (`transaction_id` is its parent)."""

    id: str
    transaction_id: str
    amount: int
    memo: str | None
    payee_id: str | None
    payee_name: str | None
    category_id: str | None
    category_name: str | None
    transfer_account_id: str | None
    transfer_transaction_id: str | None


@dataclass(frozen=True, slots=True)
class ScheduledTransaction:
    id: str
    date_first: date
    date_next: date
    frequency: str
    amount: int
    memo: str | None
    flag_color: str | None
    flag_name: str | None
    account_id: str
    payee_id: str | None
    category_id: str | None
    transfer_account_id: str | None


@dataclass(frozen=True, slots=True)
class ScheduledSubtransaction:
    id: str
    scheduled_transaction_id: str
    amount: int
    memo: str | None
    payee_id: str | None
    payee_name: str | None
    category_id: str | None
    category_name: str | None
    transfer_account_id: str | None
