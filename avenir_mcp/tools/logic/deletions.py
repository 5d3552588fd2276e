"""Deleting transactions (docs/tools.md#delete_transactions) and entering them again
(docs/undo.md#delete_transactions): pure.

`deletions(snapshot, transaction_ids)` checks each id against the plan and returns, in the
order given, what re-enters each transaction (`DeletedTransaction`): its account, date,
amount, payee (id and name), category, memo, cleared, approved, flag and split lines; for a
transfer the other account instead of the payee. It also keeps the ids of the live
transactions that already share its account, date, amount and payee (`lookalike_ids`), so
undo can tell one entered since from one that was always there (a duplicate deleted while
its twin stays). Refused (`Refusal`, one line): a transaction not in the plan (deleted ones are
not in a snapshot); a reconciled one, or a transfer whose other side is reconciled (it would
move a balance the person matched to the bank); the two sides of one transfer both given
(YNAB deletes the pair); the side of a transfer made by a split's line (YNAB deletes it only
with its split). The tool refuses an empty list and an id given twice before the plan is read.

`reentry_state(snapshot, item, own_ids)` compares one deleted transaction with the plan now, for
undo (docs/undo.md#the-rule): still there (its delete never landed) → `already_as_before`;
its account, transfer account or category gone or closed, or a live transaction of the same
account, date, amount and payee entered since → `conflict`; else `restore`.
`reentry_body(snapshot, item)` is the transaction YNAB's `POST /transactions` takes to enter it
again (a new id; the transfer's other side comes back with it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict

from avenir_mcp.tools.logic.available import ActivityMove, transaction_moves
from avenir_mcp.tools.logic.transaction_lines import NO_PAYEE, SPLIT, category_shown
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import listed, quoted, shown_name
from avenir_mcp.ynab_client.snapshot import ClearedStatus, PlanSnapshot, Transaction

BOTH_SIDES = "(both sides)"


class DeletedLine(BaseModel):
    """One line of a deleted split, as it re-enters: a transfer line by its other account."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    amount: int
    payee_id: str | None
    payee_name: str | None
    category_id: str | None
    memo: str | None
    transfer_account_id: str | None


class DeletedTransaction(BaseModel):
    """What enters a deleted transaction again (module docstring); `id` is the deleted one's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    account_id: str
    date: date
    amount: int
    payee_id: str | None
    payee_name: str | None
    transfer_account_id: str | None
    category_id: str | None
    memo: str | None
    cleared: ClearedStatus
    approved: bool
    flag_color: str | None
    lines: tuple[DeletedLine, ...] = ()
    lookalike_ids: tuple[str, ...] = ()


def deletions(snapshot: PlanSnapshot, transaction_ids: Sequence[str]) -> tuple[DeletedTransaction, ...]:
    """Each transaction to delete, checked, as it would re-enter (see the module docstring)."""
    transactions = [_deletable(snapshot, transaction_id) for transaction_id in transaction_ids]
    given = {t.id for t in transactions}
    for transaction in transactions:
        other = transaction.transfer_transaction_id
        if other is not None and other in given and transaction.id < other:
            raise Refusal(
                f"Transactions {quoted(transaction.id, 40)} and {quoted(other, 40)} are the two sides of "
                "one transfer; give one of them: YNAB deletes its pair with it."
            )
    return tuple(_deleted(snapshot, t) for t in transactions)


def _deletable(snapshot: PlanSnapshot, transaction_id: str) -> Transaction:
    transaction = snapshot.transactions.get(transaction_id)
    if transaction is None:
        raise not_in_plan("transaction", transaction_id, "find_transactions")
    reconciled = "reconciled"
    if transaction.cleared == reconciled:
        raise Refusal(
            f"Transaction {quoted(transaction_id, 40)} is reconciled: deleting it would move a balance the "
            "person matched to the bank. They can delete it in YNAB, which asks first."
        )
    other = snapshot.transactions.get(transaction.transfer_transaction_id or "")
    if other is not None and snapshot.is_split(other):
        raise Refusal(
            f"Transaction {quoted(transaction_id, 40)} is the other side of a transfer made by a line of "
            f"split transaction {quoted(other.id, 40)}; YNAB deletes it only with that split: give the "
            "split's id instead."
        )
    if other is not None and other.cleared == reconciled:
        raise Refusal(
            f"Transaction {quoted(transaction_id, 40)} is a transfer whose other side "
            f"({quoted(other.id, 40)}) is reconciled, and YNAB deletes both: it would move a balance the "
            "person matched to the bank. They can delete it in YNAB, which asks first."
        )
    return transaction


def _deleted(snapshot: PlanSnapshot, transaction: Transaction) -> DeletedTransaction:
    payee = snapshot.payees.get(transaction.payee_id) if transaction.payee_id else None
    payee_text = payee.name if payee is not None else transaction.import_payee_name
    lines = tuple(
        DeletedLine(
            amount=line.amount,
            payee_id=line.payee_id,
            payee_name=line.payee_name,
            category_id=line.category_id,
            memo=line.memo,
            transfer_account_id=line.transfer_account_id,
        )
        for line in snapshot.subtransactions_of(transaction.id)
    )
    key = (transaction.account_id, transaction.date, transaction.amount, _payee_key(payee_text))
    lookalikes = tuple(t.id for t in _lookalikes(snapshot, key) if t.id != transaction.id)
    return DeletedTransaction(
        id=transaction.id,
        account_id=transaction.account_id,
        date=transaction.date,
        amount=transaction.amount,
        payee_id=transaction.payee_id,
        payee_name=payee_text,
        transfer_account_id=transaction.transfer_account_id,
        category_id=None if lines else transaction.category_id,
        memo=transaction.memo,
        cleared=transaction.cleared,
        approved=transaction.approved,
        flag_color=transaction.flag_color or None,
        lines=lines,
        lookalike_ids=lookalikes,
    )


Key = tuple[str, date, int, str]


def _payee_key(name: str | None) -> str:
    return " ".join((name or "").split()).casefold()


def _lookalikes(snapshot: PlanSnapshot, key: Key) -> Iterable[Transaction]:
    """The live transactions of the same account, date, amount and payee (by name, any case)."""
    account_id, day, amount, payee = key
    for transaction in snapshot.transactions_in_month(day):
        if (transaction.account_id, transaction.date, transaction.amount) != (account_id, day, amount):
            continue
        found = snapshot.payees.get(transaction.payee_id) if transaction.payee_id else None
        if _payee_key(found.name if found is not None else transaction.import_payee_name) == payee:
            yield transaction


def deletion_moves(snapshot: PlanSnapshot, transaction_ids: Sequence[str]) -> list[ActivityMove]:
    """The activity deleting these takes away (docs/confirmation.md#what-a-change-leaves-available):
    each one's, and a transfer's other side's (a transfer to a tracking account has its category there)."""
    moves: list[ActivityMove] = []
    for transaction_id in transaction_ids:
        transaction = snapshot.transactions[transaction_id]
        moves += transaction_moves(snapshot, transaction, sign=-1)
        other = snapshot.transactions.get(transaction.transfer_transaction_id or "")
        if other is not None:
            moves += transaction_moves(snapshot, other, sign=-1)
    return moves


def reentry_moves(item: DeletedTransaction) -> list[ActivityMove]:
    """The activity entering `item` again brings back: each line's, else its own."""
    if item.lines:
        return [ActivityMove(line.category_id, item.date, line.amount) for line in item.lines]
    return [ActivityMove(item.category_id, item.date, item.amount)]


# --- what the person reads ---------------------------------------------------------------------


def deletion_line(snapshot: PlanSnapshot, item: DeletedTransaction) -> str:
    """`2026-09-12; Market; 86.40; Groceries; on Checking`; a transfer ends
    `; transfer to Savings (both sides)` (`from` for money in), with no category unless it has one
    (a transfer to a tracking account)."""
    amount = shown_amount(snapshot.settings.currency_format, item.amount, statement=True)
    parts = [item.date.isoformat(), shown_name(item.payee_name, NO_PAYEE), amount]
    if item.transfer_account_id is None or item.category_id is not None:
        parts.append(SPLIT if item.lines else category_shown(snapshot, item.category_id))
    parts.append(f"on {_account_shown(snapshot, item.account_id)}")
    if item.transfer_account_id is not None:
        way = "to" if item.amount < 0 else "from"
        parts.append(f"transfer {way} {_account_shown(snapshot, item.transfer_account_id)} {BOTH_SIDES}")
    return listed(parts)


def item_name(snapshot: PlanSnapshot, item: DeletedTransaction) -> str:
    """`2026-09-12; Market; 86.40`: how an undo names a transaction it leaves alone."""
    amount = shown_amount(snapshot.settings.currency_format, item.amount, statement=True)
    return listed([item.date.isoformat(), shown_name(item.payee_name, NO_PAYEE), amount])


def _account_shown(snapshot: PlanSnapshot, account_id: str) -> str:
    account = snapshot.accounts.get(account_id)
    return shown_name(account.name) if account is not None else "(a deleted account)"


# --- undo ----------------------------------------------------------------------------------------


def reentry_state(snapshot: PlanSnapshot, item: DeletedTransaction, own_ids: set[str]) -> tuple[str, str]:
    """`(state, reason)` of one deleted transaction (module docstring); `own_ids` are the ids the
    operation deleted (a twin deleted with it is no newcomer)."""
    if item.id in snapshot.transactions:
        return "already_as_before", ""
    accounts = [item.account_id, item.transfer_account_id, *(line.transfer_account_id for line in item.lines)]
    for account_id in accounts:
        account = snapshot.accounts.get(account_id) if account_id is not None else None
        if account_id is not None and (account is None or account.closed):
            return "conflict", f"account {_account_shown(snapshot, account_id)} is closed or deleted since"
    categories = [item.category_id, *(line.category_id for line in item.lines)]
    if any(c is not None and c not in snapshot.categories for c in categories):
        return "conflict", "its category was deleted since"
    key = (item.account_id, item.date, item.amount, _payee_key(item.payee_name))
    known = {*item.lookalike_ids, *own_ids}
    newcomer = next((t for t in _lookalikes(snapshot, key) if t.id not in known), None)
    if newcomer is not None:
        return (
            "conflict",
            f"a transaction of the same account, date, amount and payee was entered since ({newcomer.id})",
        )
    return "restore", ""


def reentry_body(snapshot: PlanSnapshot, item: DeletedTransaction) -> dict[str, Any]:
    """The transaction to POST that enters `item` again (cleared, approved and flag as they were)."""
    body: dict[str, Any] = {
        "account_id": item.account_id,
        "date": item.date.isoformat(),
        "amount": item.amount,
        **_payee(snapshot, item.payee_id, item.payee_name, item.transfer_account_id),
        "category_id": item.category_id,
        "memo": item.memo,
        "cleared": item.cleared,
        "approved": item.approved,
        "flag_color": item.flag_color,
    }
    if item.lines:
        body["subtransactions"] = [
            {
                "amount": line.amount,
                **_payee(snapshot, line.payee_id, line.payee_name, line.transfer_account_id),
                "category_id": line.category_id,
                "memo": line.memo,
            }
            for line in item.lines
        ]
    return body


def _payee(
    snapshot: PlanSnapshot, payee_id: str | None, name: str | None, transfer_account_id: str | None
) -> dict[str, str | None]:
    """The payee as YNAB takes it: a transfer's by its account's transfer payee, a payee still in
    the plan by id, one deleted since by name (YNAB finds or creates it), else none."""
    if transfer_account_id is not None:
        account = snapshot.accounts[transfer_account_id]  # `reentry_state` checked it is there
        return {"payee_id": account.transfer_payee_id}
    if payee_id is not None and payee_id in snapshot.payees:
        return {"payee_id": payee_id}
    return {"payee_name": name[:200]} if name else {}
