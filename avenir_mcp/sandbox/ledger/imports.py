"""Linked-bank imports: lines "waiting at the bank" become unapproved, cleared transactions.

A waiting line is imported once: it is marked imported (with the transaction it became),
and a line whose import_id already exists on its account (deleted transactions included,
as in YNAB) is marked imported without creating anything. Lines without an import_id get
YNAB's Direct Import style `YNAB:<milliunits>:<date>:<occurrence>`.
"""

from __future__ import annotations

from collections import Counter

from django.utils import timezone

from avenir_mcp.sandbox.ledger.session import PlanWrite
from avenir_mcp.sandbox.ledger.transactions import TransactionSpec, create_transaction
from avenir_mcp.sandbox.models import BankTransaction, Plan, Transaction


def waiting_lines(plan: Plan) -> list[BankTransaction]:
    """Lines waiting at the bank for the plan's live, linked accounts, oldest first."""
    return list(
        BankTransaction.objects.filter(
            plan=plan, imported_at=None, account__direct_import_linked=True, account__deleted=False
        ).order_by("date", "id")
    )


def import_waiting(write: PlanWrite, lines: list[BankTransaction]) -> list[str]:
    """Import `lines`; the ids of the transactions created."""
    taken = set(
        Transaction.objects.filter(account_id__in={line.account_id for line in lines})
        .exclude(import_id=None)
        .values_list("account_id", "import_id")
    )
    occurrences: Counter[tuple] = Counter()
    created, now = [], timezone.now()
    for line in lines:
        import_id = line.import_id or _direct_import_id(line, occurrences)
        line.imported_at = now
        if (line.account_id, import_id) not in taken:
            taken.add((line.account_id, import_id))
            line.imported_as = create_transaction(write, _spec(line, import_id))
            created.append(line.imported_as.id)
        line.save(update_fields=["imported_at", "imported_as"])
    return created


def _spec(line: BankTransaction, import_id: str) -> TransactionSpec:
    return TransactionSpec(
        values={
            "account_id": line.account_id,
            "date": line.date,
            "amount": line.amount,
            "payee_name": line.payee_name,
            "memo": line.memo,
            "cleared": "cleared",
            "approved": False,
            "import_id": import_id,
        },
        extra={"import_payee_name": line.payee_name, "import_payee_name_original": line.payee_name},
    )


def _direct_import_id(line: BankTransaction, occurrences: Counter) -> str:
    """The next free occurrence of this amount on this day in this account."""
    prefix = f"YNAB:{line.amount}:{line.date.isoformat()}:"
    key = (line.account_id, prefix)
    if key not in occurrences:
        occurrences[key] = Transaction.objects.filter(
            account_id=line.account_id, import_id__startswith=prefix
        ).count()
    occurrences[key] += 1
    return f"{prefix}{occurrences[key]}"
