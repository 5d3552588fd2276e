"""Accounts: as `list_accounts` shows them (which are listed, in what order, bank link health),
and opening one (docs/tools.md#create_account). Pure.

- `CREATABLE_TYPES`: the account types YNAB's API can create; `OWED_TYPES` those whose balance
  is what is owed (negative or 0); `TRACKING_TYPES` those YNAB opens off budget.
- `open_account_named(snapshot, name)`: the open account already called `name` (YNAB's app
  shows open accounts by name; names are compared without case), if any.
- `new_account(snapshot, name, type, balance)`: create_account's account, checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import Account, PlanSnapshot

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


AccountType = Literal["checking", "savings", "cash", "creditCard", "otherAsset", "otherLiability"]
CREATABLE_TYPES: tuple[str, ...] = get_args(AccountType)
OWED_TYPES = frozenset({"creditCard", "otherLiability"})
TRACKING_TYPES = frozenset({"otherAsset", "otherLiability"})


@dataclass(frozen=True)
class NewAccount:
    """An account to open: its name, type and today's balance (milliunits; what is owed negative)."""

    name: str
    type: AccountType
    balance: int

    @property
    def on_budget(self) -> bool:
        """YNAB opens assets and liabilities as tracking accounts, the others on budget."""
        return self.type not in TRACKING_TYPES


def open_account_named(snapshot: PlanSnapshot, name: str) -> Account | None:
    """The open account called `name` (any case), if any; closed ones free their name."""
    wanted = name.casefold()
    for account in snapshot.accounts.values():
        if not account.closed and account.name.casefold() == wanted:
            return account
    return None


def new_account(snapshot: PlanSnapshot, name: str, type: AccountType, balance: int) -> NewAccount:
    """The account to open, or a `Refusal`: its name taken by an open account, or a positive
    balance on a credit card or liability (what is owed is negative)."""
    holder = open_account_named(snapshot, name)
    if holder is not None:
        raise Refusal(
            f"An open account is already named {quoted(holder.name, 40)} (names are compared without "
            "case); choose another name."
        )
    if type in OWED_TYPES and balance > 0:
        owed = shown_amount(snapshot.settings.currency_format, balance)
        raise Refusal(
            f"The balance of an account of type {type} is what is owed, so it is negative (or 0): "
            f"give -{owed} for {owed} owed."
        )
    return NewAccount(name=name, type=type, balance=balance)
