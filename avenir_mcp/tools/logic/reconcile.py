"""Reconciling an account with the bank (docs/tools.md#reconcile_account) and undoing it
(docs/undo.md#reconcile_account): pure.

`reconciliation(snapshot, account_id, bank_balance, today)` compares the bank's balance with
the account's cleared balance (cleared + reconciled) and gathers what explains a gap: the
uncleared transactions, those whose amount equals the difference ("explains a gap",
docs/conventions.md#heuristics), and likely duplicates (docs/conventions.md#heuristics). Refused (`Refusal`):
an account not in the plan (deleted ones are not in a snapshot) or closed.

Reconciling marks every `cleared` transaction of the account `reconciled`, after entering,
when the person asks for it, one adjustment of the difference (cleared, approved, payee
"Reconciliation Balance Adjustment", category Inflow: Ready to Assign on a budget account).
The log keeps the account, the ids marked and the adjustment's id with a digest of it; undo
returns the ones still reconciled to cleared and deletes the adjustment while unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from avenir_mcp.tools.logic.duplicates import possible_duplicates
from avenir_mcp.tools.logic.new_transactions import transaction_digest
from avenir_mcp.tools.logic.recategorise import is_ready_to_assign
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import Account, PlanSnapshot, Transaction

ADJUSTMENT_PAYEE = "Reconciliation Balance Adjustment"
ADJUSTMENT_MEMO = "Entered by avenir-mcp to match the bank"
UNCLEARED_SHOWN = 50
CLEARED, RECONCILED, UNCLEARED = "cleared", "reconciled", "uncleared"


@dataclass(frozen=True)
class Reconciliation:
    account: Account
    bank_balance: int
    cleared_balance: int
    working_balance: int
    to_reconcile: tuple[Transaction, ...]
    uncleared: tuple[Transaction, ...]
    explained_by: tuple[str, ...]
    possible_duplicates: tuple[tuple[str, str], ...]

    @property
    def difference(self) -> int:
        """The bank's balance minus the cleared balance (what an adjustment would enter)."""
        return self.bank_balance - self.cleared_balance


def reconciliation(snapshot: PlanSnapshot, account_id: str, bank_balance: int, today: date) -> Reconciliation:
    """The account compared with the bank (see the module docstring)."""
    account = snapshot.accounts.get(account_id)
    if account is None:
        raise not_in_plan("account", account_id, "list_accounts")
    if account.closed:
        raise Refusal(
            f"Account {quoted(account_id, 40)} is closed: there is nothing to reconcile on it; "
            "give an open account from list_accounts."
        )
    transactions = snapshot.transactions_in_account(account.id)
    uncleared = tuple(t for t in transactions if t.cleared == UNCLEARED)
    difference = bank_balance - account.cleared_balance
    return Reconciliation(
        account=account,
        bank_balance=bank_balance,
        cleared_balance=account.cleared_balance,
        working_balance=account.balance,
        to_reconcile=tuple(t for t in transactions if t.cleared == CLEARED),
        uncleared=uncleared,
        explained_by=tuple(t.id for t in uncleared if difference != 0 and t.amount == difference),
        possible_duplicates=tuple(possible_duplicates(snapshot, account.id, today)),
    )


def adjustment_category_id(snapshot: PlanSnapshot, account: Account) -> str | None:
    """Inflow: Ready to Assign for a budget account; none on a tracking account."""
    if not account.on_budget:
        return None
    found = sorted(c.id for c in snapshot.categories.values() if is_ready_to_assign(snapshot, c))
    return found[0] if found else None


def adjustment(snapshot: PlanSnapshot, account: Account, amount: int, today: date) -> dict[str, Any]:
    """The adjustment transaction to POST."""
    return {
        "account_id": account.id,
        "date": today.isoformat(),
        "amount": amount,
        "payee_name": ADJUSTMENT_PAYEE,
        "category_id": adjustment_category_id(snapshot, account),
        "memo": ADJUSTMENT_MEMO,
        "cleared": CLEARED,
        "approved": True,
    }


# --- undo ----------------------------------------------------------------------------------


def reconciled_state(snapshot: PlanSnapshot, transaction_id: str) -> tuple[str, str]:
    """One transaction the operation marked: `restore` while still reconciled."""
    transaction = snapshot.transactions.get(transaction_id)
    if transaction is None:
        return "conflict", "it was deleted"
    if transaction.cleared == RECONCILED:
        return "restore", ""
    if transaction.cleared == CLEARED:
        return "already_as_before", ""
    return "conflict", f"it is {transaction.cleared} now"


def adjustment_state(snapshot: PlanSnapshot, adjustment_id: str, entered_as: str | None) -> tuple[str, str]:
    """The adjustment (`entered_as`: its digest then): `restore` (delete it) while there and
    unchanged; gone counts as before."""
    transaction = snapshot.transactions.get(adjustment_id)
    if transaction is None:
        return "already_as_before", ""
    if transaction_digest(transaction) != entered_as:
        return "conflict", "it changed since it was entered (date, amount, payee, category or memo)"
    return "restore", ""
