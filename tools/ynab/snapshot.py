"""`PlanSnapshot`: one plan as of one `server_knowledge`, immutable, indexed for the tools.

Get one with `await tools.ynab.plan_snapshot(plan_id)` (one delta request when warm, the
full export when cold). A snapshot never changes: a refresh builds a new one that shares
every untouched part with the old, so a tool may keep using the snapshot it got while
another refresh lands. Nothing in it may be mutated (the containers are read-only types).

Plan
    `plan_id` (always the real id, also when asked for `last-used`), `name`,
    `server_knowledge`, `last_modified_on`, `first_month` / `last_month` (`date`, first of
    month), `settings` (`PlanSettings`: `currency_format` with `decimal_digits`, separators
    and ISO code, or None; `date_format`, e.g. "DD/MM/YYYY", or None).

Entities by id (`Mapping[str, Entity]`; `months` is keyed by the month's first day)
    `accounts`, `category_groups`, `categories`, `months`, `payees`, `payee_locations`,
    `transactions`, `subtransactions`, `scheduled_transactions`,
    `scheduled_subtransactions`. Classes and fields: `tools.ynab.entities` (YNAB's names).
    Deleted entities are never present. Closed accounts and hidden or internal categories
    are (filter on `closed`, `hidden`, `internal`). `categories[...]` carry the *current*
    month's budgeted/activity/balance; use `month_category` for another month. Iterating a
    map follows no particular order: sort, or use the ordered indexes below. `.values()`
    and `.items()` are one-pass iterators (wrap in `list()` to reuse or count).

Ordered indexes (tuples, computed once per change, never by scanning)
    Transactions, newest first (date descending, then id), each transaction once:
    - `transactions_in_account(account_id)`
    - `transactions_in_category(category_id)`: a split is listed under each of its lines'
      categories (and under its parent category, YNAB's hidden "split" one)
    - `transactions_with_payee(payee_id)`: under its own payee and each line's payee
    - `transactions_in_month(month)`: `month` is any date in the month
    - `transactions_newest_first()` / `transactions_between(since, until)` (inclusive):
      iterators over the whole plan, walking months from the newest.
    - `subtransactions_of(transaction_id)`: a split's lines (id order), `()` for others;
      `is_split(transaction)`.
    Categories: `categories_in_group(group_id)` in name order (case-folded, then id).
    Months: `month_category(month, category_id)` (that month's figures, a `Category`),
    `month_categories(month)` (`Mapping[str, Category]`), `month_keys()` (sorted).
    Schedules: `scheduled_subtransactions_of(scheduled_id)` (id order).

Amounts are `int` milliunits everywhere; dates are `date`; transfers, splits and flags
are as YNAB gives them (see `entities.Transaction`). `counts()` sums up the plan.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime

from tools.ynab.entities import (
    Account,
    Category,
    CategoryGroup,
    Month,
    Payee,
    PayeeLocation,
    PlanSettings,
    ScheduledSubtransaction,
    ScheduledTransaction,
    Subtransaction,
    Transaction,
)
from tools.ynab.pmap import EMPTY_MAP, PersistentMap

NO_SETTINGS = PlanSettings(currency_format=None, date_format=None)


def _empty() -> PersistentMap:
    return EMPTY_MAP


@dataclass(frozen=True, slots=True)
class PlanSnapshot:
    """One plan, immutable, with the indexes read tools need. See the module docstring."""

    plan_id: str
    name: str = ""
    server_knowledge: int = 0
    last_modified_on: datetime | None = None
    first_month: date | None = None
    last_month: date | None = None
    settings: PlanSettings = NO_SETTINGS
    accounts: PersistentMap[str, Account] = field(default_factory=_empty, repr=False)
    category_groups: PersistentMap[str, CategoryGroup] = field(default_factory=_empty, repr=False)
    categories: PersistentMap[str, Category] = field(default_factory=_empty, repr=False)
    months: PersistentMap[date, Month] = field(default_factory=_empty, repr=False)
    payees: PersistentMap[str, Payee] = field(default_factory=_empty, repr=False)
    payee_locations: PersistentMap[str, PayeeLocation] = field(default_factory=_empty, repr=False)
    transactions: PersistentMap[str, Transaction] = field(default_factory=_empty, repr=False)
    subtransactions: PersistentMap[str, Subtransaction] = field(default_factory=_empty, repr=False)
    scheduled_transactions: PersistentMap[str, ScheduledTransaction] = field(
        default_factory=_empty, repr=False
    )
    scheduled_subtransactions: PersistentMap[str, ScheduledSubtransaction] = field(
        default_factory=_empty, repr=False
    )
    # Indexes, maintained by tools.ynab.merge.
    month_figures: PersistentMap[date, PersistentMap[str, Category]] = field(
        default_factory=_empty, repr=False
    )
    subtransactions_by_transaction: PersistentMap[str, tuple[Subtransaction, ...]] = field(
        default_factory=_empty, repr=False
    )
    scheduled_subtransactions_by_scheduled: PersistentMap[str, tuple[ScheduledSubtransaction, ...]] = field(
        default_factory=_empty, repr=False
    )
    transactions_by_account: PersistentMap[str, tuple[Transaction, ...]] = field(
        default_factory=_empty, repr=False
    )
    transactions_by_category: PersistentMap[str, tuple[Transaction, ...]] = field(
        default_factory=_empty, repr=False
    )
    transactions_by_payee: PersistentMap[str, tuple[Transaction, ...]] = field(
        default_factory=_empty, repr=False
    )
    transactions_by_month: PersistentMap[date, tuple[Transaction, ...]] = field(
        default_factory=_empty, repr=False
    )
    categories_by_group: PersistentMap[str, tuple[Category, ...]] = field(default_factory=_empty, repr=False)

    # --- transactions --------------------------------------------------------------------

    def transactions_in_account(self, account_id: str) -> tuple[Transaction, ...]:
        return self.transactions_by_account.get(account_id, ())

    def transactions_in_category(self, category_id: str) -> tuple[Transaction, ...]:
        return self.transactions_by_category.get(category_id, ())

    def transactions_with_payee(self, payee_id: str) -> tuple[Transaction, ...]:
        return self.transactions_by_payee.get(payee_id, ())

    def transactions_in_month(self, month: date) -> tuple[Transaction, ...]:
        return self.transactions_by_month.get(month.replace(day=1), ())

    def transactions_newest_first(self) -> Iterator[Transaction]:
        for month in sorted(self.transactions_by_month, reverse=True):
            yield from self.transactions_by_month[month]

    def transactions_between(self, since: date, until: date) -> Iterator[Transaction]:
        """Transactions dated `since` … `until` (inclusive), newest first."""
        first, last = since.replace(day=1), until.replace(day=1)
        for month in sorted(self.transactions_by_month, reverse=True):
            if first <= month <= last:
                yield from (t for t in self.transactions_by_month[month] if since <= t.date <= until)

    def subtransactions_of(self, transaction_id: str) -> tuple[Subtransaction, ...]:
        return self.subtransactions_by_transaction.get(transaction_id, ())

    def is_split(self, transaction: Transaction) -> bool:
        return transaction.id in self.subtransactions_by_transaction

    # --- categories, months, schedules ---------------------------------------------------

    def categories_in_group(self, group_id: str) -> tuple[Category, ...]:
        return self.categories_by_group.get(group_id, ())

    def month_keys(self) -> list[date]:
        return sorted(self.months)

    def month_category(self, month: date, category_id: str) -> Category | None:
        """A category's figures (budgeted, activity, balance, target progress) in `month`."""
        return self.month_figures.get(month.replace(day=1), EMPTY_MAP).get(category_id)

    def month_categories(self, month: date) -> Mapping[str, Category]:
        return self.month_figures.get(month.replace(day=1), EMPTY_MAP)

    def scheduled_subtransactions_of(self, scheduled_id: str) -> tuple[ScheduledSubtransaction, ...]:
        return self.scheduled_subtransactions_by_scheduled.get(scheduled_id, ())

    def counts(self) -> dict[str, int]:
        """How many entities of each kind the plan holds."""
        return {
            "accounts": len(self.accounts),
            "category_groups": len(self.category_groups),
            "categories": len(self.categories),
            "months": len(self.months),
            "payees": len(self.payees),
            "payee_locations": len(self.payee_locations),
            "transactions": len(self.transactions),
            "subtransactions": len(self.subtransactions),
            "scheduled_transactions": len(self.scheduled_transactions),
            "scheduled_subtransactions": len(self.scheduled_subtransactions),
        }


def transaction_order(transaction: Transaction) -> tuple[int, str]:
    """Newest first, then by id: the order of every transaction index."""
    return (-transaction.date.toordinal(), transaction.id)


def category_order(category: Category) -> tuple[str, str]:
    return (category.name.casefold(), category.id)


def id_order(entity: Subtransaction | ScheduledSubtransaction) -> str:
    return entity.id
