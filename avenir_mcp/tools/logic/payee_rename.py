"""Renaming a payee (docs/tools.md#rename_payee): the checks. Pure.

Refused (`Refusal`, one line): an unknown payee (deleted ones are not in a snapshot); a
transfer payee (YNAB names it after its account); a name another payee already has, in any
case (YNAB's API cannot merge payees). Renaming to the same name is unchanged; a change of
case only is a rename.
"""

from __future__ import annotations

from dataclasses import dataclass

from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import Payee, PlanSnapshot

NAME_LIMIT = 500
PAYEE_SOURCE = "list_payees"


@dataclass(frozen=True)
class PayeeRenaming:
    payee: Payee
    name: str
    transactions: int  # transactions using it, as payee or on a split line (as list_payees counts)

    @property
    def unchanged(self) -> bool:
        return self.payee.name == self.name


def payee_renaming(snapshot: PlanSnapshot, payee_id: str, name: str) -> PayeeRenaming:
    """The payee renamed to `name`, or a `Refusal` saying what to give instead."""
    payee = snapshot.payees.get(payee_id)
    if payee is None:
        raise not_in_plan("payee", payee_id, PAYEE_SOURCE)
    if payee.transfer_account_id is not None:
        raise Refusal(
            f"Payee {quoted(payee.name, 40)} is a transfer payee: it follows its account's name, which "
            "only YNAB itself can change; choose another payee from list_payees."
        )
    holder = payee_holder(snapshot, name, besides=payee.id)
    if holder is not None:
        raise Refusal(
            f"Another payee is already named {quoted(holder.name, 40)} (names are compared without case), "
            "and YNAB's API cannot merge payees: choose another name, or merge them in YNAB itself."
        )
    return PayeeRenaming(payee, name, len(snapshot.transactions_with_payee(payee.id)))


def payee_holder(snapshot: PlanSnapshot, name: str, *, besides: str | None = None) -> Payee | None:
    """The payee other than `besides` already named `name` (any case), if any."""
    wanted = name.casefold()
    for payee in snapshot.payees.values():
        if payee.id != besides and payee.name.casefold() == wanted:
            return payee
    return None
