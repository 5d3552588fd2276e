"""Payees with how often and how recently they are used, for `list_payees` (docs/tools.md#list_payees)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from avenir_mcp.tools.logic.payees import normalise_payee
from avenir_mcp.ynab_client.snapshot import Payee, PlanSnapshot


@dataclass(frozen=True, slots=True)
class PayeeUsage:
    payee: Payee
    merchant: str  # the normalised name (docs/conventions.md#heuristics)
    transactions: int  # transactions using it, as their payee or on a split line
    last_date: date | None  # the newest of them


def payee_usage(snapshot: PlanSnapshot, search: str | None = None) -> list[PayeeUsage]:
    """The plan's payees matching `search`, most used first, then by name (case-folded), id.

    Transfer payees (one per account, named after it) are left out; deleted ones are never
    in a snapshot. `search` matches a case-insensitive substring of the name or of its
    normalised form (`netflix` finds `CB NETFLIX.COM 12/01`); None matches every payee.
    Counts come from the snapshot's payee index: no transaction is scanned.
    """
    wanted = search.casefold() if search is not None else None
    found = []
    for payee in snapshot.payees.values():
        if payee.transfer_account_id is not None:
            continue
        merchant = normalise_payee(payee.name)
        if wanted is None or wanted in payee.name.casefold() or wanted in merchant.casefold():
            found.append(_usage(snapshot, payee, merchant))
    return sorted(found, key=_usage_order)


def _usage(snapshot: PlanSnapshot, payee: Payee, merchant: str) -> PayeeUsage:
    used = snapshot.transactions_with_payee(payee.id)  # newest first
    return PayeeUsage(payee, merchant, len(used), used[0].date if used else None)


def _usage_order(usage: PayeeUsage) -> tuple[int, str, str]:
    return (-usage.transactions, usage.payee.name.casefold(), usage.payee.id)
