"""Accounts as `list_accounts` shows them: which are listed, in what order, bank link health."""

from __future__ import annotations

from typing import Literal

from ynab_client.snapshot import Account, PlanSnapshot

BankLink = Literal["healthy", "broken", "none"]


def bank_link(account: Account) -> BankLink:
    """`none`: not linked to a bank; `broken`: linked, but YNAB reports an import error;
    `healthy`: linked and importing."""
    if not account.direct_import_linked:
        return "none"
    return "broken" if account.direct_import_in_error else "healthy"


def listed_accounts(snapshot: PlanSnapshot) -> list[Account]:
    """Every account of the plan (deleted ones are never in a snapshot; closed ones are kept).

    Open before closed, then on budget before tracking, then by name (case-folded) and id:
    the order the person reads a sidebar in, stable from call to call.
    """
    return sorted(snapshot.accounts.values(), key=_account_order)


def _account_order(account: Account) -> tuple[bool, bool, str, str]:
    return (account.closed, not account.on_budget, account.name.casefold(), account.id)
