"""Money moving through a plan's accounts, line by line: what the computed reads add up.

A transaction moves its amount on its account; a split moves each line's amount, with the
line's own category, payee and transfer. `month_lines` gives those moves as `Line`s, so a
split's transfer line is a transfer and its other lines are spending or income. Pure
functions over a `PlanSnapshot`; amounts in `int` milliunits, signs as YNAB's (money out
negative).

Also here, the facts about accounts and transactions several reads share:
- debt-type accounts (`DEBT_TYPES`): cards, lines of credit, loans, other liabilities;
- a "Starting Balance" transaction is money the account held before the plan began, never
  income or spending (`is_starting_balance`);
- the first month with real activity (`first_activity_month`): months before it say
  nothing about the household's spending and are skipped, not counted as zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from avenir_mcp.values.months import add_months, month_start
from avenir_mcp.ynab_client.snapshot import Account, PlanSnapshot, Transaction

STARTING_BALANCE = "Starting Balance"
"""The payee YNAB gives the transaction that opens an account with its balance."""

CARD_TYPES = frozenset({"creditCard", "lineOfCredit"})
LOAN_TYPES = frozenset(
    {"mortgage", "autoLoan", "studentLoan", "personalLoan", "medicalDebt", "otherDebt", "otherLiability"}
)
DEBT_TYPES = CARD_TYPES | LOAN_TYPES
CASH_TYPES = frozenset({"checking", "savings", "cash"})


class Line(NamedTuple):
    """One move of money on an account: a whole transaction, or one line of a split.

    A named tuple rather than a dataclass: the computed reads make thousands per call.
    """

    transaction: Transaction
    amount: int
    payee_id: str | None
    category_id: str | None
    transfer_account_id: str | None


def split_lines(snapshot: PlanSnapshot, transaction: Transaction) -> Iterator[Line]:
    """A split transaction as its lines (each line's payee, or the parent's)."""
    for part in snapshot.subtransactions_of(transaction.id):
        yield Line(
            transaction,
            part.amount,
            part.payee_id or transaction.payee_id,
            part.category_id,
            part.transfer_account_id,
        )


@dataclass(frozen=True, slots=True)
class PlanFacts:
    """Plain lookups built once per call, so the loops over thousands of transactions touch
    no persistent map: accounts by id, payee names by id (transfer payees left out), the
    "Starting Balance" payees, and which transactions are splits."""

    accounts: dict[str, Account]
    payee_names: dict[str, str]
    starting_payees: frozenset[str]
    split_ids: frozenset[str]


def plan_facts(snapshot: PlanSnapshot) -> PlanFacts:
    accounts = dict(snapshot.accounts.items())
    payee_names = {p.id: p.name for p in snapshot.payees.values() if p.transfer_account_id is None}
    starting = frozenset(pid for pid, name in payee_names.items() if name == STARTING_BALANCE)
    return PlanFacts(accounts, payee_names, starting, frozenset(snapshot.subtransactions_by_transaction))


def month_lines(
    snapshot: PlanSnapshot, facts: PlanFacts, month: date, account_ids: AbstractSet[str]
) -> Iterator[Line]:
    """The lines of the transactions of `account_ids` dated in `month` (its first day),
    Starting Balances left out."""
    starting, splits = facts.starting_payees, facts.split_ids
    for t in snapshot.transactions_in_month(month):
        if t.account_id not in account_ids:
            continue
        if t.id in splits:
            yield from split_lines(snapshot, t)
        elif t.transfer_account_id is not None or t.payee_id not in starting:
            yield Line(t, t.amount, t.payee_id, t.category_id, t.transfer_account_id)


def is_debt(account: Account) -> bool:
    return account.type in DEBT_TYPES


def is_starting_balance(snapshot: PlanSnapshot, transaction: Transaction) -> bool:
    """YNAB's "Starting Balance" transaction: what the account held when it was added."""
    if transaction.transfer_account_id is not None or transaction.payee_id is None:
        return False
    payee = snapshot.payees.get(transaction.payee_id)
    return payee is not None and payee.transfer_account_id is None and payee.name == STARTING_BALANCE


def transactions_in_months(snapshot: PlanSnapshot, months: Iterable[date]) -> Iterator[Transaction]:
    """Every transaction dated in `months` (firsts of months), Starting Balances left out."""
    for month in months:
        for transaction in snapshot.transactions_in_month(month):
            if not is_starting_balance(snapshot, transaction):
                yield transaction


def first_activity_month(snapshot: PlanSnapshot) -> date | None:
    """The month of the plan's oldest transaction that is not a Starting Balance; None if none."""
    for month in sorted(snapshot.transactions_by_month):
        transactions = snapshot.transactions_by_month[month]
        if any(not is_starting_balance(snapshot, t) for t in transactions):
            return month
    return None


def complete_months(today: date, months_count: int, first_activity: date | None) -> list[date]:
    """The last `months_count` full months before `today`'s, oldest first, from `first_activity` on.

    Months before the plan's first real transaction are skipped (they hold no spending to
    average), so a young plan gets fewer months, and a plan with none gets `[]`.
    """
    current = month_start(today)
    months = [add_months(current, -back) for back in range(months_count, 0, -1)]
    if first_activity is None:
        return []
    return [month for month in months if month >= first_activity]
