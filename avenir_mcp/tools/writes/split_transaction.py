"""`split_transaction`: split one transaction over several categories, once the person agreed
(docs/tools.md#split_transaction). Not undoable: YNAB's API cannot edit a split, so the preview says only YNAB
can.

The checks are `tools.logic.splits`. One `PUT /plans/{plan_id}/transactions/{id}` with the
transaction's fields as read when the answer comes, `category_id: null` and the
`subtransactions` (a transaction that can no longer be split so is refused then). The subject
is the transaction and the lines (docs/confirmation.md#subjects-and-the-fingerprint); the log
keeps the transaction, the lines' categories and its category before (no amounts, payee or
memos), `undoable: false`. The preview also shows each category's available amount before →
after in the transaction's month: its category before gives the amount up, the lines' take
theirs (`tools.writes.consequences`). A lost answer is settled from the transaction's lines (`settle`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import MAX_IDS, AmountValue, amount_arg, given_text, id_arg
from avenir_mcp.mcp_surface.presenting import category_name, memo, money
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.kinds import PREFIX, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.tools.logic.available import ActivityMove, transaction_moves
from avenir_mcp.tools.logic.recategorise import shown_category_id
from avenir_mcp.tools.logic.splits import SplitLine, checked_split, split_lines_refusal
from avenir_mcp.tools.logic.transaction_lines import category_shown, payee_shown
from avenir_mcp.tools.writes.consequences import available_consequences
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.text import listed, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient
from avenir_mcp.ynab_client.snapshot import Category, Transaction

CHECK = "Check with find_transactions whether the transaction is split before trying again."
NOT_UNDOABLE = "Only YNAB itself can undo a split; undo_operation cannot."
MEMO_LIMIT = 500


class LineToSplit(BaseModel):
    amount: AmountValue = Field(
        description='Currency units as a decimal string like "-51.13", signed like the transaction '
        "(money out negative); not zero; at most 3 decimals."
    )
    category_id: str = Field(description="The line's category (get_category_balances).", max_length=100)
    memo: str | None = Field(
        default=None, description="A memo for the line, at most 500 characters.", max_length=2000
    )


class SplitLineResult(BaseModel):
    amount: str = Field(description="Currency units, signed like the transaction.")
    category: str = Field(description="The line's category.")
    memo: str | None = Field(description="The line's memo (one line, at most 80 characters); null for none.")


class TransactionSplitFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    transaction_id: str
    date: str = Field(description="YYYY-MM-DD.")
    payee: str = Field(description="The payee's name (bank data: one line, at most 80 characters).")
    amount: str = Field(description="The transaction's amount, currency units; money out negative.")
    from_category: str | None = Field(description="Its category before; null when it had none.")
    lines: list[SplitLineResult] = Field(description="The split's lines, in the order given.")


class TransactionSplit(TransactionSplitFields, WriteResult):
    pass


@dataclass(frozen=True)
class Splitting:
    """split_transaction's arguments, checked: the transaction and at least two non-zero lines."""

    transaction_id: str
    lines: tuple[SplitLine, ...]


class SplitSubject(Subject):
    """The transaction and its lines (amount, category, memo); the log keeps the transaction and
    the lines' categories (`LoggedSplit`), never their amounts or memos."""

    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"lines"})

    transaction_id: str
    lines: tuple[SplitLine, ...]

    def stored(self) -> dict[str, Any]:
        return {**super().stored(), "line_category_ids": [line.category_id for line in self.lines]}


class LoggedSplit(Record):
    """The subject as the log keeps it (`SplitSubject.stored`), read back by `settle`."""

    transaction_id: str
    line_category_ids: tuple[str, ...]


class SplitRecord(Record):
    """What the log keeps of a split (not undoable: `settle` reads it): the transaction and its
    category before."""

    transaction_id: str
    category_before: str | None


class SplitTransaction(WriteTool[Splitting, SplitSubject, TransactionSplitFields, SplitRecord]):
    """Splits one transaction; not undoable. A lost answer is judged from the transaction's
    lines: split into lines of those categories → `applied`; still unsplit in its category
    before → `failed`; anything else (deleted, split otherwise, recategorised) → `unknown`."""

    name = "split_transaction"
    result = TransactionSplit

    def build(
        self, snapshot: PlanSnapshot, arguments: Splitting
    ) -> Built[SplitSubject, TransactionSplitFields, SplitRecord]:
        lines = arguments.lines
        transaction, categories = checked_split(snapshot, arguments.transaction_id, lines)
        payee = payee_shown(snapshot, transaction)
        amount = shown_amount(snapshot.settings.currency_format, transaction.amount, statement=True)
        shown_lines = zip(lines, categories, strict=True)
        moves = [
            *transaction_moves(snapshot, transaction, sign=-1),
            *(ActivityMove(line.category_id, transaction.date, line.amount) for line in lines),
        ]
        consequences, notes = available_consequences(snapshot, moves)
        return Change(
            subject=SplitSubject(transaction_id=transaction.id, lines=lines),
            preview=Preview(
                question=f"Split {transaction.date.isoformat()} {payee} {amount} into {len(lines)} lines?",
                lines=[_line(snapshot, ln, category) for ln, category in shown_lines],
                consequences=consequences,
                notes=[*notes, NOT_UNDOABLE],
            ),
            fields=TransactionSplitFields(
                transaction_id=transaction.id,
                date=transaction.date.isoformat(),
                payee=payee,
                amount=money(snapshot, transaction.amount),
                from_category=category_name(snapshot, shown_category_id(snapshot, transaction.category_id)),
                lines=[
                    SplitLineResult(
                        amount=money(snapshot, ln.amount),
                        category=category_shown(snapshot, c.id),
                        memo=memo(ln.memo),
                    )
                    for ln, c in zip(lines, categories, strict=True)
                ],
            ),
            undoable=False,
            undo_data=SplitRecord(transaction_id=transaction.id, category_before=transaction.category_id),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[SplitSubject, TransactionSplitFields, SplitRecord],
    ) -> Applied[TransactionSplitFields]:
        split = change.subject
        transaction = snapshot.transactions[split.transaction_id]
        fields = {
            **current_fields(transaction),
            "category_id": None,
            "subtransactions": [
                {"amount": line.amount, "category_id": line.category_id, "memo": line.memo}
                for line in split.lines
            ],
        }
        await client.put_transaction(snapshot.plan_id, transaction.id, fields, check_hint=CHECK)
        return Applied(lead=f"Split the transaction into {len(split.lines)} lines.")

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        logged = SplitRecord.from_stored(op.undo_data)
        transaction_id, wanted = logged.transaction_id, LoggedSplit.from_stored(op.subject).line_category_ids
        transaction = snapshot.transactions.get(transaction_id)
        if transaction is None:
            said = (
                f"{PREFIX} transaction {transaction_id} was deleted since, so YNAB cannot tell whether it "
                "was split."
            )
            return Settlement("unknown", said, "unsure")
        lines = snapshot.subtransactions_of(transaction_id)
        if lines and Counter(line.category_id for line in lines) == Counter(wanted):
            said = f"{PREFIX} transaction {transaction_id} is split into its {len(wanted)} lines."
            return Settlement("applied", said, "all")
        if not lines and transaction.category_id == logged.category_before:
            said = f"{PREFIX} transaction {transaction_id} is not split, as before: nothing was changed."
            return Settlement("failed", said, "none")
        said = (
            f"{PREFIX} transaction {transaction_id} changed since (split otherwise or recategorised), so "
            "YNAB cannot tell whether this split landed. Check it with find_transactions."
        )
        return Settlement("unknown", said, "unsure")


@write_tool(
    SplitTransaction(),
    title="Split a transaction",
    toolset="transactions",
    destructive=True,
    idempotent=False,
)
def split_transaction(
    transaction_id: Annotated[
        str, Field(description="The transaction to split (find_transactions).", max_length=100)
    ],
    lines: Annotated[
        list[LineToSplit],
        Field(
            max_length=MAX_IDS,
            description=f"2-{MAX_IDS} lines adding up to the transaction's amount exactly.",
        ),
    ],
) -> Splitting:
    """Split one transaction over several categories, after the person agreed; it cannot be undone here.

    For a purchase that covers several budgets (food and household goods in one shop). The
    lines' amounts must add up to the transaction's amount to the cent, each line with its
    category; for a single category use apply_categories. Refused: transactions split already
    (YNAB's API cannot edit a split's lines), transfers, transactions on tracking accounts.
    The person is asked to confirm, with each category's available amount before → after and
    the categories left overspent named (a question in their client, or a confirmation code
    to return only once they agreed). Only YNAB itself can undo a split: undo_operation cannot,
    and the preview says so.
    """
    transaction = id_arg(transaction_id, what="transaction")
    checked = tuple(
        SplitLine(
            amount=amount_arg(line.amount, field=f"amount of line {index}"),
            category_id=id_arg(line.category_id, what="category"),
            memo=given_text(line.memo, field=f"memo of line {index}", max_length=MEMO_LIMIT),
        )
        for index, line in enumerate(lines, start=1)
    )
    refusal = split_lines_refusal(checked)
    if refusal is not None:
        raise refusal
    return Splitting(transaction, checked)


def _line(snapshot: PlanSnapshot, line: SplitLine, category: Category) -> str:
    amount = shown_amount(snapshot.settings.currency_format, line.amount, statement=True)
    text = f"{category_shown(snapshot, category.id)}: {amount}"
    if line.memo is not None:
        text = listed([text, f"memo: {shown_name(line.memo)}"])
    return text


def current_fields(transaction: Transaction) -> dict[str, Any]:
    """The transaction's fields as YNAB holds them, for a PUT that changes only its lines."""
    return {
        "account_id": transaction.account_id,
        "date": transaction.date.isoformat(),
        "amount": transaction.amount,
        "payee_id": transaction.payee_id,
        "memo": transaction.memo,
        "cleared": transaction.cleared,
        "approved": transaction.approved,
        "flag_color": transaction.flag_color or None,
    }
