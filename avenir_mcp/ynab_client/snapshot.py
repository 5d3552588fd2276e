"""`PlanSnapshot`: one plan as of one `server_knowledge`, immutable, indexed for the tools.

Get one with `await ynab_client.plan_snapshot(plan_id)` (one delta request when warm, the
full export when cold). A snapshot never changes: a refresh builds a new one that shares
every untouched part with the old, so a tool may keep using the snapshot it got while
another refresh lands. Nothing in it may be mutated (the containers are read-only types).

Plan
    `plan_id` (always the real id, also when asked for `last-used`), `name`,
    `server_knowledge`, `last_modified_on`, `as_of` (an aware UTC `datetime`: when the
    snapshot was last brought in line with YNAB, i.e. when the request that synced it was
    sent; stamped by `ynab_client.cache`, `NEVER_SYNCED` on one built by hand), `first_month`
    / `last_month` (`date`, first of month), `settings` (`PlanSettings`: `currency_format`
    with `decimal_digits`, separators and ISO code, or None; `date_format`, e.g.
    "DD/MM/YYYY", or None).

Entities by id (`Mapping[str, Entity]`; `months` is keyed by the month's first day)
    `accounts`, `category_groups`, `categories`, `months`, `payees`, `payee_locations`,
    `transactions`, `subtransactions`, `scheduled_transactions`,
    `scheduled_subtransactions`. Classes and fields: the entities below (YNAB's names).
    Deleted entities are never present. Closed accounts and hidden or internal categories
    are (filter on `closed`, `hidden`, `internal`). `categories[...]` carry the *current*
    month's budgeted/activity/balance; use `month_category` for another month. Iterating a
    map follows no particular order: sort, or use the ordered indexes below. `.values()`
    and `.items()` are views, as a dict's are (they walk the buckets, no lookup per key).

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
are as YNAB gives them (see `Transaction`). `counts()` sums up the plan.

This module holds, in order: the entities (one frozen class per kind of YNAB's export),
`PersistentMap` (the maps a snapshot is made of), `PlanSnapshot`, and the parsing of
YNAB's JSON into entities and `PlanDelta`s (which `ynab_client.cache` merges).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, ItemsView, Iterable, Iterator, Mapping, ValuesView
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any, Generic, Literal, TypeVar, get_args, overload

from avenir_mcp.ynab_client.errors import MalformedAnswer

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D")
E = TypeVar("E")
Json = dict[str, Any]


# --- What a plan is made of, as tools get it: frozen, typed, in milliunits -------------------
#
# One class per entity kind of YNAB's plan export (`GET /plans/{id}`), with YNAB's field
# names so the API documentation reads straight across. Every amount is an `int` of
# milliunits; every date a `datetime.date`; every date-time an aware `datetime`. Deleted
# entities never appear (the snapshot drops them), so there is no `deleted` field. Fields
# YNAB marks deprecated (`debt_original_balance`, `original_category_group_id`,
# `goal_target_month`) are left out.
#
# These are slotted frozen dataclasses rather than pydantic models on purpose: a 50,000-
# transaction plan is parsed on every cold start and kept in memory, and slots keep each
# transaction at a few hundred bytes.


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


# YNAB's TransactionClearedStatus.
ClearedStatus = Literal["cleared", "uncleared", "reconciled"]


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
    cleared: ClearedStatus
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


# --- PersistentMap: an immutable mapping whose updates copy only what they touch -------------
#
# A plan snapshot holds maps of up to tens of thousands of entities; a delta refresh changes a
# handful of them. Copying a 50,000-entry dict on every refresh would cost milliseconds and
# double the memory for a moment; `PersistentMap` instead spreads its entries over hash
# buckets (plain dicts, never mutated once published) and `evolve` copies the bucket tuple
# plus the few buckets that change. Snapshots before and after a refresh share every other
# bucket, so both stay valid and cheap.
#
# Iteration order follows the buckets, not insertion: callers that need an order sort, or
# use the ordered indexes of `PlanSnapshot`.

# Aim for buckets of about this many entries: small enough to copy in microseconds.
_BUCKET_TARGET = 32
# Rebuild with more buckets once they grow this much past the target (amortised, rare).
_BUCKET_LIMIT = _BUCKET_TARGET * 4
_EMPTY: dict = {}


def _width_for(size: int) -> int:
    """Number of buckets (a power of two) for `size` entries."""
    width = 1
    while width * _BUCKET_TARGET < size:
        width *= 2
    return width


class PersistentMap(Mapping[K, V], Generic[K, V]):
    """A read-only mapping; `evolve` returns a new map sharing untouched buckets."""

    __slots__ = ("_buckets", "_len", "_mask")

    def __init__(self, items: Mapping[K, V] | None = None) -> None:
        items = items or {}
        width = _width_for(len(items))
        buckets: list[dict] = [{} for _ in range(width)]
        mask = width - 1
        for key, value in items.items():
            buckets[hash(key) & mask][key] = value
        self._buckets: tuple[dict, ...] = tuple(bucket or _EMPTY for bucket in buckets)
        self._mask = mask
        self._len = len(items)

    def __getitem__(self, key: K) -> V:
        return self._buckets[hash(key) & self._mask][key]

    @overload
    def get(self, key: K, /) -> V | None: ...
    @overload
    def get(self, key: K, default: V, /) -> V: ...
    @overload
    def get(self, key: K, default: D, /) -> V | D: ...
    def get(self, key: K, default: object = None, /) -> object:
        return self._buckets[hash(key) & self._mask].get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._buckets[hash(key) & self._mask]

    def __iter__(self) -> Iterator[K]:
        for bucket in self._buckets:
            yield from bucket

    def __len__(self) -> int:
        return self._len

    def values(self) -> ValuesView[V]:
        return _BucketValues(self)

    def items(self) -> ItemsView[K, V]:
        return _BucketItems(self)

    def __reduce__(self) -> tuple:
        # Pickled as its entries, never its buckets: a bucket is chosen by hash(key), and
        # string hashes differ from one process to the next.
        return (PersistentMap, (dict(self.items()),))

    def evolve(self, updates: Mapping[K, V] | None = None, removals: Iterable[K] = ()) -> PersistentMap[K, V]:
        """A new map with `updates` set and `removals` gone (absent keys are ignored)."""
        changes = _group_by_bucket(self._mask, updates or {}, removals)
        if not changes:
            return self
        buckets = list(self._buckets)
        size = self._len
        for index, (sets, drops) in changes.items():
            bucket = dict(buckets[index])
            before = len(bucket)
            for key in drops:
                bucket.pop(key, None)
            bucket.update(sets)
            size += len(bucket) - before
            buckets[index] = bucket or _EMPTY
        return self._with_buckets(buckets, size)

    def _with_buckets(self, buckets: list[dict], size: int) -> PersistentMap[K, V]:
        if size > len(buckets) * _BUCKET_LIMIT or (len(buckets) > 1 and size * 16 < len(buckets)):
            return PersistentMap({key: value for bucket in buckets for key, value in bucket.items()})
        evolved = PersistentMap.__new__(PersistentMap)
        evolved._buckets = tuple(buckets)
        evolved._mask = self._mask
        evolved._len = size
        return evolved


class _BucketValues(ValuesView[V]):
    """A map's values, walked bucket by bucket (`ValuesView` would look each key up again)."""

    __slots__ = ()
    _mapping: PersistentMap[Any, V]

    def __iter__(self) -> Iterator[V]:
        for bucket in self._mapping._buckets:
            yield from bucket.values()


class _BucketItems(ItemsView[K, V]):
    """A map's (key, value) pairs, walked bucket by bucket."""

    __slots__ = ()
    _mapping: PersistentMap[K, V]

    def __iter__(self) -> Iterator[tuple[K, V]]:
        for bucket in self._mapping._buckets:
            yield from bucket.items()


def _group_by_bucket(mask: int, updates: Mapping, removals: Iterable) -> dict[int, tuple[dict, list]]:
    """Changes grouped per bucket index: (keys to set, keys to drop)."""
    changes: dict[int, tuple[dict, list]] = {}
    for key in removals:
        changes.setdefault(hash(key) & mask, ({}, []))[1].append(key)
    for key, value in updates.items():
        changes.setdefault(hash(key) & mask, ({}, []))[0][key] = value
    return changes


EMPTY_MAP: PersistentMap = PersistentMap()


# --- The snapshot -------------------------------------------------------------------------

NO_SETTINGS = PlanSettings(currency_format=None, date_format=None)
NEVER_SYNCED = datetime(1970, 1, 1, tzinfo=UTC)
"""The `as_of` of a snapshot no sync stamped (one built by hand): as old as can be, never fresh."""


def _empty() -> PersistentMap:
    return EMPTY_MAP


@dataclass(frozen=True, slots=True)
class PlanSnapshot:
    """One plan, immutable, with the indexes read tools need. See the module docstring."""

    plan_id: str
    name: str = ""
    server_knowledge: int = 0
    last_modified_on: datetime | None = None
    as_of: datetime = NEVER_SYNCED
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
    # Indexes, maintained by the merge (ynab_client.cache).
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


# --- YNAB's JSON into entities and plan deltas --------------------------------------------
#
# `parse_plan_delta` reads the `data` of `GET /plans/{id}` (a full export, or a delta when
# `last_knowledge_of_server` was sent: the same shape, fewer entities, deleted ones flagged)
# into a `PlanDelta` that the cache (`ynab_client.cache.apply_delta`) applies to a snapshot.
# A missing required field or a wrong type raises `MalformedAnswer` (a `YnabError`) naming
# what was wrong: a malformed answer must never become a half-built plan.


@dataclass(frozen=True, slots=True)
class Changes(Generic[E]):
    """Entities of one kind that changed: new or updated ones, and ids deleted."""

    upserts: tuple[E, ...] = ()
    deleted_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MonthChange:
    """A month in a delta: its totals (None when deleted) and its categories that changed."""

    month: date
    totals: Month | None
    categories: Changes[Category]


@dataclass(frozen=True, slots=True)
class PlanDelta:
    """Everything one `GET /plans/{id}` answer says, ready to merge."""

    plan_id: str
    name: str
    last_modified_on: datetime | None
    first_month: date | None
    last_month: date | None
    settings: PlanSettings
    server_knowledge: int
    accounts: Changes[Account]
    category_groups: Changes[CategoryGroup]
    categories: Changes[Category]
    months: tuple[MonthChange, ...]
    payees: Changes[Payee]
    payee_locations: Changes[PayeeLocation]
    transactions: Changes[Transaction]
    subtransactions: Changes[Subtransaction]
    scheduled_transactions: Changes[ScheduledTransaction]
    scheduled_subtransactions: Changes[ScheduledSubtransaction]

    def is_empty(self) -> bool:
        """True when no entity of any kind changed."""
        kinds = (
            self.accounts, self.category_groups, self.categories, self.payees,
            self.payee_locations, self.transactions, self.subtransactions,
            self.scheduled_transactions, self.scheduled_subtransactions,
        )  # fmt: skip
        return not self.months and not any(kind.upserts or kind.deleted_ids for kind in kinds)


def parse_plan_delta(data: Json) -> PlanDelta:
    """The `data` member of a `GET /plans/{id}` answer as a `PlanDelta`."""
    try:
        return _plan_delta(data["plan"], int(data["server_knowledge"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise malformed_answer("the plan", exc) from exc


def parse_plan_summaries(data: Json) -> tuple[tuple[PlanSummary, ...], str | None]:
    """The `data` of `GET /plans`: the plans, and the default plan's id if YNAB names one."""
    try:
        plans = tuple(_plan_summary(plan) for plan in data["plans"])
        default = data.get("default_plan")
        return plans, (default["id"] if default else None)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise malformed_answer("the plan list", exc) from exc


def malformed_answer(what: str, exc: Exception) -> MalformedAnswer:
    reason = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)[:200]
    return MalformedAnswer(
        f"YNAB's answer for {what} was not in the shape this service expects ({reason}); "
        "nothing was read from it. Try again later; if it persists, the YNAB API may have changed.",
        status=200,
    )


def _plan_delta(plan: Json, knowledge: int) -> PlanDelta:
    return PlanDelta(
        plan_id=sys.intern(plan["id"]),
        name=plan["name"],
        last_modified_on=_datetime_or_none(plan.get("last_modified_on")),
        first_month=_date_or_none(plan.get("first_month")),
        last_month=_date_or_none(plan.get("last_month")),
        settings=_settings(plan),
        server_knowledge=knowledge,
        accounts=_changes(plan.get("accounts"), account_from_row),
        category_groups=_changes(plan.get("category_groups"), category_group_from_row),
        categories=_changes(plan.get("categories"), category_from_row),
        months=tuple(_month_change(month) for month in plan.get("months") or ()),
        payees=_changes(plan.get("payees"), payee_from_row),
        payee_locations=_changes(plan.get("payee_locations"), payee_location_from_row),
        transactions=_changes(plan.get("transactions"), transaction_from_row),
        subtransactions=_changes(plan.get("subtransactions"), subtransaction_from_row),
        scheduled_transactions=_changes(plan.get("scheduled_transactions"), scheduled_transaction_from_row),
        scheduled_subtransactions=_changes(
            plan.get("scheduled_subtransactions"), scheduled_subtransaction_from_row
        ),
    )


def _changes(rows: Iterable[Json] | None, build: Callable[[Json], E]) -> Changes[E]:
    upserts: list[E] = []
    deleted: list[str] = []
    for row in rows or ():
        if row.get("deleted"):
            deleted.append(sys.intern(row["id"]))
        else:
            upserts.append(build(row))
    return Changes(tuple(upserts), tuple(deleted))


def _month_change(row: Json) -> MonthChange:
    key = _date(row["month"])
    if row.get("deleted"):
        return MonthChange(key, None, Changes())
    return MonthChange(key, month_from_row(row), _changes(row.get("categories"), category_from_row))


def _plan_summary(row: Json) -> PlanSummary:
    return PlanSummary(
        id=row["id"],
        name=row["name"],
        last_modified_on=_datetime_or_none(row.get("last_modified_on")),
        first_month=_date_or_none(row.get("first_month")),
        last_month=_date_or_none(row.get("last_month")),
        settings=_settings(row),
    )


def _settings(row: Json) -> PlanSettings:
    currency = row.get("currency_format")
    date_format = row.get("date_format")
    return PlanSettings(
        currency_format=CurrencyFormat(**{field: currency[field] for field in _CURRENCY_FIELDS})
        if currency
        else None,
        date_format=date_format["format"] if date_format else None,
    )


_CURRENCY_FIELDS = CurrencyFormat.__dataclass_fields__.keys()


# --- One YNAB JSON row into one entity, checked as it goes ---------------------------------
#
# Required fields are read with `row[...]` (a missing one raises KeyError), amounts must be
# JSON integers (TypeError otherwise): the parsing above turns both into a `MalformedAnswer`.
# Strings that repeat across thousands of rows (ids, statuses) are interned and dates are
# shared, which keeps a 50,000-transaction plan's memory down.

_intern = sys.intern


def account_from_row(row: Json) -> Account:
    return Account(
        id=_intern(row["id"]),
        name=row["name"],
        type=_intern(row["type"]),
        on_budget=bool(row["on_budget"]),
        closed=bool(row["closed"]),
        note=row.get("note"),
        balance=_int(row["balance"]),
        cleared_balance=_int(row["cleared_balance"]),
        uncleared_balance=_int(row["uncleared_balance"]),
        transfer_payee_id=_id(row.get("transfer_payee_id")),
        direct_import_linked=bool(row.get("direct_import_linked")),
        direct_import_in_error=bool(row.get("direct_import_in_error")),
        last_reconciled_at=_datetime_or_none(row.get("last_reconciled_at")),
        debt_interest_rates=_periodic(row.get("debt_interest_rates")),
        debt_minimum_payments=_periodic(row.get("debt_minimum_payments")),
        debt_escrow_amounts=_periodic(row.get("debt_escrow_amounts")),
    )


def category_group_from_row(row: Json) -> CategoryGroup:
    return CategoryGroup(
        id=_intern(row["id"]),
        name=row["name"],
        hidden=bool(row["hidden"]),
        internal=bool(row.get("internal")),
    )


def category_from_row(row: Json) -> Category:
    return Category(
        id=_intern(row["id"]),
        category_group_id=_intern(row["category_group_id"]),
        category_group_name=row.get("category_group_name"),
        name=row["name"],
        hidden=bool(row["hidden"]),
        internal=bool(row.get("internal")),
        note=row.get("note"),
        budgeted=_int(row["budgeted"]),
        activity=_int(row["activity"]),
        balance=_int(row["balance"]),
        goal_type=row.get("goal_type"),
        goal_needs_whole_amount=row.get("goal_needs_whole_amount"),
        goal_day=_opt_int(row.get("goal_day")),
        goal_cadence=_opt_int(row.get("goal_cadence")),
        goal_cadence_frequency=_opt_int(row.get("goal_cadence_frequency")),
        goal_creation_month=_date_or_none(row.get("goal_creation_month")),
        goal_target=_opt_int(row.get("goal_target")),
        goal_target_date=_date_or_none(row.get("goal_target_date")),
        goal_percentage_complete=_opt_int(row.get("goal_percentage_complete")),
        goal_months_to_budget=_opt_int(row.get("goal_months_to_budget")),
        goal_under_funded=_opt_int(row.get("goal_under_funded")),
        goal_overall_funded=_opt_int(row.get("goal_overall_funded")),
        goal_overall_left=_opt_int(row.get("goal_overall_left")),
        goal_snoozed_at=_datetime_or_none(row.get("goal_snoozed_at")),
    )


def month_from_row(row: Json) -> Month:
    return Month(
        month=_date(row["month"]),
        note=row.get("note"),
        income=_int(row["income"]),
        budgeted=_int(row["budgeted"]),
        activity=_int(row["activity"]),
        to_be_budgeted=_int(row["to_be_budgeted"]),
        age_of_money=_opt_int(row.get("age_of_money")),
    )


def payee_from_row(row: Json) -> Payee:
    return Payee(
        id=_intern(row["id"]), name=row["name"], transfer_account_id=_id(row.get("transfer_account_id"))
    )


def payee_location_from_row(row: Json) -> PayeeLocation:
    return PayeeLocation(
        id=_intern(row["id"]),
        payee_id=_intern(row["payee_id"]),
        latitude=str(row["latitude"]),
        longitude=str(row["longitude"]),
    )


def transaction_from_row(row: Json) -> Transaction:
    return Transaction(
        date=_date(row["date"]),
        cleared=_cleared(row["cleared"]),
        approved=bool(row["approved"]),
        **_entry_fields(row),
        transfer_transaction_id=_id(row.get("transfer_transaction_id")),
        matched_transaction_id=_id(row.get("matched_transaction_id")),
        import_id=row.get("import_id"),
        import_payee_name=row.get("import_payee_name"),
        import_payee_name_original=row.get("import_payee_name_original"),
        debt_transaction_type=row.get("debt_transaction_type"),
    )


def subtransaction_from_row(row: Json) -> Subtransaction:
    return Subtransaction(
        transaction_id=_intern(row["transaction_id"]),
        **_split_line_fields(row),
        transfer_transaction_id=_id(row.get("transfer_transaction_id")),
    )


def scheduled_transaction_from_row(row: Json) -> ScheduledTransaction:
    return ScheduledTransaction(
        date_first=_date(row["date_first"]),
        date_next=_date(row["date_next"]),
        frequency=_intern(row["frequency"]),
        **_entry_fields(row),
    )


def scheduled_subtransaction_from_row(row: Json) -> ScheduledSubtransaction:
    return ScheduledSubtransaction(
        scheduled_transaction_id=_intern(row["scheduled_transaction_id"]),
        **_split_line_fields(row),
    )


def _entry_fields(row: Json) -> Json:
    """What a transaction and a scheduled transaction read alike."""
    return {
        "id": _intern(row["id"]),
        "amount": _int(row["amount"]),
        "memo": row.get("memo"),
        "flag_color": row.get("flag_color"),
        "flag_name": row.get("flag_name"),
        "account_id": _intern(row["account_id"]),
        "payee_id": _id(row.get("payee_id")),
        "category_id": _id(row.get("category_id")),
        "transfer_account_id": _id(row.get("transfer_account_id")),
    }


def _split_line_fields(row: Json) -> Json:
    """What a split line reads alike, whether the split is a transaction's or a schedule's."""
    return {
        "id": _intern(row["id"]),
        "amount": _int(row["amount"]),
        "memo": row.get("memo"),
        "payee_id": _id(row.get("payee_id")),
        "payee_name": row.get("payee_name"),
        "category_id": _id(row.get("category_id")),
        "category_name": row.get("category_name"),
        "transfer_account_id": _id(row.get("transfer_account_id")),
    }


def _int(value: Any) -> int:
    """An amount: JSON integers only (a float or a string amount is a malformed answer)."""
    if type(value) is not int:
        raise TypeError(f"expected an integer amount, got {type(value).__name__}")
    return value


_CLEARED_STATUSES: dict[str, ClearedStatus] = {status: status for status in get_args(ClearedStatus)}


def _cleared(value: Any) -> ClearedStatus:
    """A transaction's cleared status: one of YNAB's three, the one shared string of each."""
    status = _CLEARED_STATUSES.get(value)
    if status is None:
        raise ValueError(f"unknown cleared status {str(value)[:20]!r}")
    return status


def _opt_int(value: Any) -> int | None:
    return None if value is None else _int(value)


def _id(value: str | None) -> str | None:
    return None if value is None else _intern(value)


@lru_cache(maxsize=8192)
def _date_from_text(value: str) -> date:
    return date.fromisoformat(value)


def _date(value: Any) -> date:
    """A required date: ISO text only (a null date is a malformed answer, never a plan's)."""
    if type(value) is not str:
        raise TypeError(f"expected a date, got {type(value).__name__}")
    return _date_from_text(value)


def _date_or_none(value: str | None) -> date | None:
    return None if value is None else _date_from_text(value)


def _datetime_or_none(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _periodic(value: dict[str, int] | None) -> tuple[tuple[date, int], ...]:
    return tuple(sorted((_date_from_text(day), _int(amount)) for day, amount in (value or {}).items()))
