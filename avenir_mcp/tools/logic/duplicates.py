"""Likely duplicates (docs/conventions.md#heuristics): same account, same amount, same normalised payee,
at most 3 days apart, both within the last 60 days. Pure.

`possible_duplicates(snapshot, account_id, today)` pairs an account's recent transactions
(reconcile_account's analysis); `Lookalikes` tells whether a transaction about to be created
resembles one already in the account or another one of the same request (create_transactions'
preview). Only the last 60 days are read, newest first, so a long history costs nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from avenir_mcp.tools.logic.payees import normalise_payee
from avenir_mcp.values.months import days_later
from avenir_mcp.ynab_client.snapshot import PlanSnapshot, Transaction

RECENT_DAYS = 60
NEAR_DAYS = 3

Key = tuple[int, str]


def payee_text(snapshot: PlanSnapshot, transaction: Transaction) -> str:
    """The payee's name, else the bank's, else "" (the text normalisation compares)."""
    payee = snapshot.payees.get(transaction.payee_id) if transaction.payee_id else None
    return payee.name if payee is not None else transaction.import_payee_name or ""


def duplicate_key(amount: int, payee: str) -> Key:
    return amount, normalise_payee(payee)


def is_recent(day: date, today: date) -> bool:
    return today - timedelta(days=RECENT_DAYS) <= day <= today


def are_near(first: date, second: date) -> bool:
    return abs((first - second).days) <= NEAR_DAYS


def recent_transactions(snapshot: PlanSnapshot, account_id: str, today: date) -> Iterator[Transaction]:
    """The account's transactions of the last 60 days, newest first (stops at the first older one)."""
    for transaction in snapshot.transactions_in_account(account_id):
        if transaction.date > today:
            continue
        if not is_recent(transaction.date, today):
            return
        yield transaction


def possible_duplicates(snapshot: PlanSnapshot, account_id: str, today: date) -> list[tuple[str, str]]:
    """Pairs of the account's recent transactions that look like one another, newest first."""
    by_key: dict[Key, list[Transaction]] = defaultdict(list)
    pairs: list[tuple[str, str]] = []
    for transaction in recent_transactions(snapshot, account_id, today):
        key = duplicate_key(transaction.amount, payee_text(snapshot, transaction))
        pairs += [
            (newer.id, transaction.id) for newer in by_key[key] if are_near(newer.date, transaction.date)
        ]
        by_key[key].append(transaction)
    return pairs


@dataclass(frozen=True)
class Lookalike:
    """What a new transaction resembles: its date and payee as the person knows them, and the
    existing transaction's id (None when it is another line of the same request)."""

    date: date
    payee: str
    transaction_id: str | None


class Lookalikes:
    """The account's recent transactions that could look like one of `lines` (date, amount,
    payee), indexed for `like(...)`: only those near the lines' dates and of their amounts are
    read, so a request costs the few days it spans, not the account's whole history. `lines`
    holds at least one line (create_transactions takes one or more)."""

    def __init__(
        self, snapshot: PlanSnapshot, account_id: str, today: date, lines: Sequence[tuple[date, int, str]]
    ) -> None:
        self.today = today
        self._by_key: dict[Key, list[Transaction]] = defaultdict(list)
        self._snapshot = snapshot
        amounts = {amount for _day, amount, _payee in lines}
        # held at 0001-01-01: a line's date is checked before (tools.logic.new_transactions.check_date),
        # but this search never overflows whatever date it is given
        earliest = days_later(min(day for day, _amount, _payee in lines), -NEAR_DAYS)
        for transaction in recent_transactions(snapshot, account_id, today):
            if transaction.date < earliest:
                break
            if transaction.amount in amounts:
                key = duplicate_key(transaction.amount, payee_text(snapshot, transaction))
                self._by_key[key].append(transaction)

    def like(self, index: int, lines: Sequence[tuple[date, int, str]]) -> Lookalike | None:
        """What line `index` of `lines` (date, amount, payee) resembles: the nearest existing
        transaction, else the first other line; None when nothing."""
        day, amount, payee = lines[index]
        if not is_recent(day, self.today):
            return None
        key = duplicate_key(amount, payee)
        near = [t for t in self._by_key.get(key, ()) if are_near(t.date, day)]
        if near:
            found = min(near, key=lambda t: (abs((t.date - day).days), -t.date.toordinal(), t.id))
            return Lookalike(found.date, payee_text(self._snapshot, found), found.id)
        for other, (other_day, other_amount, other_payee) in enumerate(lines):
            if other == index or not is_recent(other_day, self.today) or not are_near(other_day, day):
                continue
            if duplicate_key(other_amount, other_payee) == key:
                return Lookalike(other_day, other_payee, None)
        return None
