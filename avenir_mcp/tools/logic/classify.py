"""The inbox of transactions waiting for a category, with what the plan's history suggests.

Pure functions over a `PlanSnapshot` and "today" (docs/conventions.md#heuristics, fixed thresholds):

- **pending**: `tools.logic.pending.is_pending` (also what get_monthly_summary counts).
- **category suggestion** (`suggestion_from`): the history of a pending transaction is
  every categorised, non-transfer, non-split transaction whose payee normalises to the same
  merchant, *in the same direction* (money in vs money out). Uses of categories that can no
  longer be assigned (hidden, in a hidden group, internal other than Ready to Assign, card
  payment; deleted ones are not in the snapshot) are dropped; confidence is the top
  category's uses ÷ the uses left (`based_on`), suggested only at **≥ 0.90**, compared in
  integers (9 of 10 is suggested, 8 of 10 is not).
- **transfer pairing** (`transfer_pairs`): two pending transactions on different accounts,
  opposite amounts to the milliunit (never zero), at most **3 days** apart; one partner
  each, the nearest date first.
- **likely duplicates** (`likely_duplicates`): a pending transaction and another of the same
  account, same amount, same merchant, at most **3 days** apart, both dated within the last
  **60 days**; the nearest one is named.

`pending_inbox(snapshot, today)` puts them together, newest first. It walks the whole plan
once, so the tool keeps its answer per plan state (`InboxMemo`).
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from avenir_mcp.tools.logic.budget import display_order, is_card_payment, is_shown_in_budget
from avenir_mcp.tools.logic.payees import normalise_payee
from avenir_mcp.tools.logic.pending import pending_transactions
from avenir_mcp.tools.logic.recategorise import is_ready_to_assign
from avenir_mcp.ynab_client.snapshot import Category, PlanSnapshot, Transaction

SUGGESTION_THRESHOLD = (9, 10)
"""Confidence needed for a suggestion, as a fraction: 0.90 (docs/conventions.md#heuristics)."""
PAIRING_DAYS = 3
"""Most days between the two sides of a transfer, or between a transaction and its duplicate."""
DUPLICATE_WINDOW_DAYS = 60
"""Both transactions of a likely duplicate are dated within this many days before today."""


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A category the payee's own history points to: `uses` of `based_on` earlier transactions."""

    category_id: str
    uses: int
    based_on: int

    @property
    def confidence_hundredths(self) -> int:
        """uses ÷ based_on in hundredths, rounded down (never shows more confidence than there is)."""
        return self.uses * 100 // self.based_on


@dataclass(frozen=True, slots=True)
class PendingItem:
    transaction: Transaction
    suggestion: Suggestion | None
    transfer_with: str | None  # the id of the pending transaction that may be its other side
    duplicate_of: str | None  # the id of the transaction it likely repeats


@dataclass(frozen=True, slots=True)
class Inbox:
    items: tuple[PendingItem, ...]  # newest first (date, then id)
    suggested_count: int
    categories: tuple[Category, ...]  # the assignable ones, in display order


# --- which transactions, which categories ----------------------------------------------------


def is_assignable(snapshot: PlanSnapshot, category: Category) -> bool:
    """A category a transaction can be given now: shown in the budget and not a card payment
    category, or YNAB's Inflow: Ready to Assign (for income)."""
    if is_ready_to_assign(snapshot, category):
        return True
    return is_shown_in_budget(snapshot, category) and not is_card_payment(snapshot, category)


def assignable_categories(snapshot: PlanSnapshot) -> tuple[Category, ...]:
    """Every assignable category, in display order (group, then name)."""
    found = (c for c in snapshot.categories.values() if is_assignable(snapshot, c))
    return tuple(sorted(found, key=lambda category: display_order(snapshot, category)))


def merchant_of(snapshot: PlanSnapshot, transaction: Transaction) -> str:
    """The transaction's payee, normalised (`""` when it has none)."""
    payee = snapshot.payees.get(transaction.payee_id) if transaction.payee_id else None
    return normalise_payee(payee.name) if payee is not None else ""


def is_inflow(transaction: Transaction) -> bool:
    """Money in; zero and money out count as out."""
    return transaction.amount > 0


# --- category suggestion ---------------------------------------------------------------------


def suggestion_from(uses: Counter[str]) -> Suggestion | None:
    """The suggestion a history's uses per assignable category give (at least one use), or
    None under 0.90.

    Ties at the top are never suggested (they are at most 0.50); the rule is exact:
    `top × 10 ≥ total × 9`.
    """
    based_on = sum(uses.values())
    category_id, top = min(uses.items(), key=lambda pair: (-pair[1], pair[0]))
    wanted, out_of = SUGGESTION_THRESHOLD
    if top * out_of < based_on * wanted:
        return None
    return Suggestion(category_id=category_id, uses=top, based_on=based_on)


def category_histories(
    snapshot: PlanSnapshot, merchants: Iterable[str]
) -> dict[tuple[str, bool], Counter[str]]:
    """Per (merchant, is_inflow): uses of each assignable category by categorised transactions.

    Only the wanted merchants are gathered, through the payee index (no scan of the plan).
    A transaction counts when its category is assignable now (so never none, Uncategorized,
    hidden or deleted), it is no transfer and not split.
    """
    wanted = set(merchants) - {""}
    merchant_by_payee = {
        payee.id: merchant
        for payee in snapshot.payees.values()
        if (merchant := normalise_payee(payee.name)) in wanted
    }
    assignable = {
        category.id for category in snapshot.categories.values() if is_assignable(snapshot, category)
    }
    splits = snapshot.subtransactions_by_transaction
    histories: dict[tuple[str, bool], Counter[str]] = defaultdict(Counter)
    for payee_id, merchant in merchant_by_payee.items():
        for transaction in snapshot.transactions_with_payee(payee_id):
            if (
                transaction.payee_id == payee_id  # not a split listed under a line's payee
                and transaction.category_id in assignable
                and transaction.transfer_account_id is None
                and transaction.id not in splits
            ):
                histories[(merchant, is_inflow(transaction))][transaction.category_id] += 1
    return dict(histories)


# --- transfers and duplicates ----------------------------------------------------------------


def transfer_pairs(pending: Sequence[Transaction]) -> dict[str, str]:
    """Each paired transaction's id → its partner's id (both directions).

    Candidates: different accounts, opposite non-zero amounts, ≤ 3 days apart. The nearest
    dates pair first (then the newest, then ids, so the answer never depends on order), and
    a transaction takes one partner at most.
    """
    by_amount: dict[int, list[Transaction]] = defaultdict(list)
    for transaction in pending:
        if transaction.amount != 0:
            by_amount[transaction.amount].append(transaction)
    candidates = []
    for amount, outs in by_amount.items():
        if amount >= 0:
            continue
        for out in outs:
            for back in by_amount.get(-amount, ()):
                gap = abs((out.date - back.date).days)
                if out.account_id != back.account_id and gap <= PAIRING_DAYS:
                    newest = max(out.date, back.date)
                    candidates.append((gap, -newest.toordinal(), out.id, back.id))
    partners: dict[str, str] = {}
    for _gap, _newest, out_id, back_id in sorted(candidates):
        if out_id not in partners and back_id not in partners:
            partners[out_id], partners[back_id] = back_id, out_id
    return partners


def likely_duplicates(snapshot: PlanSnapshot, pending: Iterable[Transaction], today: date) -> dict[str, str]:
    """Each pending transaction that likely repeats another → that other one's id (the nearest
    date, then the smaller id). Only the last 60 days of the plan are read."""
    since = today - timedelta(days=DUPLICATE_WINDOW_DAYS)
    recent: dict[tuple[str, int, str], list[Transaction]] = defaultdict(list)
    for transaction in snapshot.transactions_between(since, date.max):
        merchant = merchant_of(snapshot, transaction)
        if merchant:
            recent[(transaction.account_id, transaction.amount, merchant)].append(transaction)
    found: dict[str, str] = {}
    for transaction in pending:
        if transaction.date < since:
            continue
        alike = recent.get(
            (transaction.account_id, transaction.amount, merchant_of(snapshot, transaction)), ()
        )
        near = [
            (abs((other.date - transaction.date).days), other.id)
            for other in alike
            if other.id != transaction.id and abs((other.date - transaction.date).days) <= PAIRING_DAYS
        ]
        if near:
            found[transaction.id] = min(near)[1]
    return found


# --- the inbox -------------------------------------------------------------------------------


def pending_inbox(snapshot: PlanSnapshot, today: date) -> Inbox:
    """The pending transactions with their suggestion, transfer partner and likely duplicate."""
    pending = pending_transactions(snapshot)
    merchants = {t.id: merchant_of(snapshot, t) for t in pending}
    histories = category_histories(snapshot, merchants.values())
    partners = transfer_pairs(pending)
    duplicates = likely_duplicates(snapshot, pending, today)
    items = []
    for transaction in pending:
        uses = histories.get((merchants[transaction.id], is_inflow(transaction)))
        items.append(
            PendingItem(
                transaction=transaction,
                suggestion=suggestion_from(uses) if uses else None,
                transfer_with=partners.get(transaction.id),
                duplicate_of=duplicates.get(transaction.id),
            )
        )
    suggested = sum(1 for item in items if item.suggestion is not None)
    return Inbox(items=tuple(items), suggested_count=suggested, categories=assignable_categories(snapshot))


class InboxMemo:
    """The last few inboxes, each kept while the plan parts it was computed from are unchanged.

    Snapshots share every map a refresh did not touch, so the identity of those maps (held
    here, so an id is never reused) says whether an inbox is still the plan's.
    """

    def __init__(self, size: int = 4) -> None:
        self._size = size
        self._entries: list[tuple[tuple[str, date], tuple[object, ...], Inbox]] = []
        self._lock = threading.Lock()

    def inbox(self, snapshot: PlanSnapshot, today: date) -> Inbox:
        """The plan's inbox as of `today`, computed only when no kept one still fits."""
        parts = (
            snapshot.transactions,
            snapshot.subtransactions_by_transaction,
            snapshot.accounts,
            snapshot.categories,
            snapshot.category_groups,
            snapshot.payees,
        )
        key = (snapshot.plan_id, today)
        with self._lock:
            for kept_key, kept_parts, inbox in self._entries:
                if kept_key == key and all(a is b for a, b in zip(kept_parts, parts, strict=True)):
                    return inbox
        inbox = pending_inbox(snapshot, today)
        with self._lock:
            self._entries = [(key, parts, inbox), *self._entries][: self._size]
        return inbox
