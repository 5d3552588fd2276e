"""Writing transactions: transfers (both legs), splits, deletions; figures kept right.

Callers check a request first (`sandbox.api.transaction_input`); these functions trust
their input. Every function runs inside a `PlanWrite` and reports what it touched, so the
balances and activity follow (apply -old, +new).

Transfers: the payee is the other account's transfer payee. The other leg has the
opposite amount, the same date and memo, the first account's transfer payee, and both legs
point at each other (`transfer_account`, `transfer_transaction`). Between two on-budget
accounts neither leg has a category; with a tracking account, the on-budget leg carries
the category. Changing one leg's date or amount changes the other's; deleting one deletes
both. A split line may be a transfer: its leg points back at the split's parent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from avenir_mcp.sandbox.ledger.payees import payee_named
from avenir_mcp.sandbox.ledger.session import PlanWrite
from avenir_mcp.sandbox.models import Account, Category, Payee, Subtransaction, Transaction

# Fields copied as given; the rest (payee, category, lines, transfers) need work.
PLAIN_FIELDS = ("date", "amount", "memo", "cleared", "approved", "import_id", "account_id")


@dataclass
class LineSpec:
    """One subtransaction to create."""

    amount: int
    payee_id: str | None = None
    payee_name: str | None = None
    category_id: str | None = None
    memo: str | None = None


@dataclass
class TransactionSpec:
    """What to set: only the keys present in `values` change (payee_id, payee_name,
    category_id, flag_color and the PLAIN_FIELDS); `lines` makes the transaction a split."""

    values: dict[str, Any]
    lines: list[LineSpec] | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # other model fields (imports)


def create_transaction(write: PlanWrite, spec: TransactionSpec) -> Transaction:
    values = spec.values
    txn = Transaction(plan=write.plan, knowledge=write.knowledge, cleared="uncleared", approved=False)
    for name in PLAIN_FIELDS:
        if name in values:
            setattr(txn, name, values[name])
    txn.flag_color = values.get("flag_color") or None
    for name, value in spec.extra.items():
        setattr(txn, name, value)
    txn.payee = _payee(write, values)
    txn.category_id = values.get("category_id")
    txn.save()
    touched = [txn.id]
    if spec.lines:
        touched += _make_split(write, txn, spec.lines)
    elif txn.payee_id and txn.payee.transfer_account_id:
        touched.append(_open_transfer(write, txn, txn.payee.transfer_account_id).id)
    write.transactions_changed({}, touched)
    return txn


def update_transaction(write: PlanWrite, txn: Transaction, spec: TransactionSpec) -> None:
    related = _related_ids(txn)
    before = write.snapshot(related)
    values = spec.values
    for name in PLAIN_FIELDS:
        if name in values and name != "import_id":
            setattr(txn, name, values[name])
    if "flag_color" in values:
        txn.flag_color = values["flag_color"] or ("" if txn.flag_color else None)
    if "payee_id" in values or "payee_name" in values:
        txn.payee = _payee(write, values)
    if "category_id" in values:
        txn.category_id = values["category_id"]
    txn.knowledge = write.knowledge
    touched = set(related)
    if spec.lines:
        txn.save()
        touched.update(_make_split(write, txn, spec.lines))
    elif is_leg_of_split_line(txn):
        txn.save()  # its transfer belongs to the split's line, which did not change
    else:
        touched.update(_settle_transfer(write, txn))
        txn.save()
    write.transactions_changed(before, touched)


def is_leg_of_split_line(txn: Transaction) -> bool:
    """Whether `txn` is the other side of a transfer made by a line of a split."""
    return Subtransaction.objects.filter(transfer_transaction=txn, deleted=False).exists()


def delete_transaction(write: PlanWrite, txn: Transaction) -> None:
    """Delete a transaction with its lines and the other legs of its transfers."""
    related = _related_ids(txn)
    before = write.snapshot(related)
    Transaction.objects.filter(pk__in=related).update(deleted=True, knowledge=write.knowledge)
    Subtransaction.objects.filter(transaction_id__in=related).update(deleted=True, knowledge=write.knowledge)
    write.transactions_changed(before, related)


def _related_ids(txn: Transaction) -> list[str]:
    """The transaction, the other leg of its transfer, and the legs of its split lines."""
    ids = [txn.id]
    if txn.transfer_transaction_id:
        ids.append(txn.transfer_transaction_id)
    legs = Subtransaction.objects.filter(transaction=txn, deleted=False).exclude(transfer_transaction=None)
    ids += list(legs.values_list("transfer_transaction_id", flat=True))
    return ids


def _payee(write: PlanWrite, values: dict[str, Any]) -> Payee | None:
    if values.get("payee_id"):
        return Payee.objects.get(pk=values["payee_id"])
    if values.get("payee_name"):
        return payee_named(write.plan, values["payee_name"], write.knowledge)
    return None


def _make_split(write: PlanWrite, txn: Transaction, lines: list[LineSpec]) -> list[str]:
    """Turn `txn` into a split of `lines`; the ids of the transfer legs its lines opened."""
    split = Category.objects.get(plan=write.plan, role=Category.ROLE_SPLIT)
    Transaction.objects.filter(pk=txn.pk).update(category=split)
    txn.category = split
    legs = []
    for order, line in enumerate(lines):
        payee = _payee(write, {"payee_id": line.payee_id, "payee_name": line.payee_name})
        sub = Subtransaction.objects.create(
            plan=write.plan,
            knowledge=write.knowledge,
            transaction=txn,
            amount=line.amount,
            memo=line.memo,
            payee=payee,
            category_id=line.category_id,
            sort_order=order,
        )
        if payee is not None and payee.transfer_account_id:
            leg = _leg(write, txn, payee.transfer_account_id, line.amount, line.memo)
            sub.transfer_account_id, sub.transfer_transaction = payee.transfer_account_id, leg
            sub.category_id = _category_beside(txn.account_id, payee.transfer_account_id, line.category_id)[0]
            sub.save()
            legs.append(leg.id)
    return legs


def _open_transfer(write: PlanWrite, txn: Transaction, target_id: str) -> Transaction:
    leg = _leg(write, txn, target_id, txn.amount, txn.memo)
    mine, theirs = _category_beside(txn.account_id, target_id, txn.category_id)
    txn.transfer_account_id, txn.transfer_transaction, txn.category_id = target_id, leg, mine
    txn.save()
    Transaction.objects.filter(pk=leg.pk).update(category_id=theirs)
    return leg


def _leg(write: PlanWrite, source: Transaction, target_id: str, amount: int, memo: str | None) -> Transaction:
    """The other side of a transfer (or of a split's transfer line) in the target account."""
    source_account = Account.objects.get(pk=source.account_id)
    return Transaction.objects.create(
        plan=write.plan,
        knowledge=write.knowledge,
        account_id=target_id,
        date=source.date,
        amount=-amount,
        memo=memo,
        cleared="uncleared",
        approved=source.approved,
        payee_id=source_account.transfer_payee_id,
        transfer_account_id=source.account_id,
        transfer_transaction=source,
    )


def _category_beside(
    account_id: str, target_id: str, category_id: str | None
) -> tuple[str | None, str | None]:
    """Categories of (this leg, the other leg): only an on-budget leg facing a tracking account has one."""
    on_budget = dict(Account.objects.filter(pk__in=[account_id, target_id]).values_list("id", "on_budget"))
    mine, theirs = on_budget[account_id], on_budget[target_id]
    if mine == theirs:
        return None, None
    return (category_id, None) if mine else (None, category_id)


def _settle_transfer(write: PlanWrite, txn: Transaction) -> list[str]:
    """After an edit: open, move, keep in step or close the transfer the payee now says."""
    target = txn.payee.transfer_account_id if txn.payee_id and txn.payee else None
    old_leg = (
        Transaction.objects.filter(pk=txn.transfer_transaction_id).first()
        if txn.transfer_transaction_id
        else None
    )
    if old_leg is not None and (
        target != old_leg.account_id or old_leg.transfer_account_id != txn.account_id
    ):
        Transaction.objects.filter(pk=old_leg.pk).update(deleted=True, knowledge=write.knowledge)
        txn.transfer_account_id = txn.transfer_transaction = None
        old_leg = None
    if target is None:
        txn.transfer_account_id = None
        return []
    if old_leg is None:
        return [_open_transfer(write, txn, target).id]
    txn.category_id = _category_beside(txn.account_id, target, txn.category_id)[0]
    Transaction.objects.filter(pk=old_leg.pk).update(
        date=txn.date, amount=-txn.amount, knowledge=write.knowledge
    )
    return [old_leg.id]
