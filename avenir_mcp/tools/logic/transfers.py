"""Transferring money between two accounts (docs/tools.md#transfer_money), a credit card payment
included, and deleting the transfer again (docs/undo.md#transfer_money): pure.

`transfer_arguments_refusal(from, to, amount, day, today)` is what the arguments alone show:
the same account twice, an amount not above zero, a date after today (schedule it instead)
or more than 5 years before it (YNAB takes neither). `transfer(snapshot, ...)` checks the rest
against the plan: an account not in the plan or closed; a destination without its transfer payee;
between an on-budget and a tracking account, a `category_id` is needed (YNAB counts the transfer
as spending or income on the budget side), and between two accounts on the same side none is
taken; a category not in the plan, Uncategorized, internal other than Inflow: Ready to Assign,
or a credit card payment category (`tools.logic.recategorise.assignable_category`).

YNAB makes a transfer of one transaction on the source account whose payee is the destination's
transfer payee: it enters the other side itself, and deleting one side deletes both. The log keeps
both sides' ids and the `transfer_digest` of the date, amount, accounts and memo as created (a
SHA-256: no amount or memo in the log itself); undo deletes the source side while both sides are
there, still one transfer, and the digest unchanged (`undo_state`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import date

from avenir_mcp.tools.logic.new_transactions import OLDEST_YEARS, open_account
from avenir_mcp.tools.logic.recategorise import assignable_category
from avenir_mcp.values.months import years_earlier
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted, shown_name
from avenir_mcp.ynab_client.snapshot import Account, Category, Payee, PlanSnapshot, Transaction


def transfer_arguments_refusal(
    from_account_id: str, to_account_id: str, amount: int, day: date, today: date
) -> Refusal | None:
    """Why these arguments cannot describe a transfer, before the plan is read; None when they can."""
    if from_account_id == to_account_id:
        return Refusal(
            f"from_account_id and to_account_id are the same account ({quoted(from_account_id, 40)}): "
            "give two different accounts."
        )
    if amount <= 0:
        return Refusal(
            "amount must be above zero: it is what leaves from_account_id for to_account_id "
            "(to transfer the other way, swap the two accounts)."
        )
    if day > today:
        return Refusal(
            f"date {day.isoformat()} is after today ({today.isoformat()}): YNAB refuses future-dated "
            "transactions; a transfer to come is scheduled instead."
        )
    oldest = years_earlier(today, OLDEST_YEARS)
    if day < oldest:
        return Refusal(
            f"date {day.isoformat()} is more than {OLDEST_YEARS} years ago, which YNAB refuses: give a "
            f"date from {oldest.isoformat()} to today ({today.isoformat()})."
        )
    return None


@dataclass(frozen=True)
class Transfer:
    """A transfer checked against the plan: both accounts, the destination's transfer payee (the
    payee of the source side), and the category it counts in on the budget side (or None)."""

    source: Account
    destination: Account
    payee: Payee
    category: Category | None

    def budget_activity(self, amount: int) -> int:
        """What transferring `amount` adds to the budget side's activity: money out of an
        on-budget source, money into an on-budget destination."""
        return -amount if self.source.on_budget else amount


def transfer(
    snapshot: PlanSnapshot, from_account_id: str, to_account_id: str, category_id: str | None
) -> Transfer:
    """The transfer checked against the plan (see the module docstring)."""
    source = open_account(snapshot, from_account_id)
    destination = open_account(snapshot, to_account_id)
    payee = snapshot.payees.get(destination.transfer_payee_id or "")
    if payee is None:
        raise Refusal(
            f"Account {quoted(destination.id, 40)} has no transfer payee in this plan, so YNAB cannot take "
            "a transfer to it; the person can make this transfer in YNAB itself."
        )
    names = f"{shown_name(source.name)} and {shown_name(destination.name)}"
    if source.on_budget != destination.on_budget:
        if category_id is None:
            raise Refusal(
                f"Of {names}, one is on budget and the other a tracking account, so YNAB counts this "
                "transfer as spending or income on the budget side: give category_id, the category it "
                "counts in (get_category_balances)."
            )
        return Transfer(source, destination, payee, assignable_category(snapshot, category_id))
    if category_id is not None:
        side = "on budget" if source.on_budget else "tracking accounts"
        raise Refusal(
            f"{names} are both {side}, and a transfer between them carries no category: give "
            "category_id null."
        )
    return Transfer(source, destination, payee, None)


# --- the log and undo ------------------------------------------------------------------------


def transfer_digest(day: str, amount: int, from_account_id: str, to_account_id: str, memo: str | None) -> str:
    """SHA-256 of a transfer's date, amount (the source side's), accounts and memo."""
    text = json.dumps([day, amount, from_account_id, to_account_id, memo], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def source_digest(transaction: Transaction) -> str:
    """The `transfer_digest` of a transfer's source side as the plan holds it now."""
    return transfer_digest(
        transaction.date.isoformat(),
        transaction.amount,
        transaction.account_id,
        transaction.transfer_account_id or "",
        transaction.memo,
    )


def undo_state(snapshot: PlanSnapshot, source_id: str, pair_id: str, created_as: str) -> tuple[str, str]:
    """A created transfer (`created_as`: its digest then): `restore` (delete it) while both sides
    are there, still one transfer, and the digest unchanged; `already_as_before` once both
    are gone (before the operation it did not exist); else `conflict`, with the reason."""
    source = snapshot.transactions.get(source_id)
    pair = snapshot.transactions.get(pair_id)
    if source is None and pair is None:
        return "already_as_before", ""
    if source is None or pair is None or source.transfer_transaction_id != pair_id:
        return "conflict", "it is no longer this transfer: a side was deleted or given another payee since"
    if source_digest(source) != created_as:
        return "conflict", "it changed since it was created (date, amount, accounts or memo)"
    return "restore", ""
