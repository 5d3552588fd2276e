"""`split_transaction`: split one transaction over several categories, once the person agreed
(docs/tools.md#split_transaction). Not undoable: YNAB's API cannot edit a split, so the preview says only YNAB
can.

The checks are `tools.logic.splits`; the path (plan read, question, log, request) is
`tools.writes.flow`. One `PUT /plans/{plan_id}/transactions/{id}` with the transaction's
current fields, `category_id: null` and the `subtransactions`. The log keeps the
transaction id and its category before (no amounts, payee or memos), `undoable: false`.

The subject is exactly that of docs/confirmation.md#subjects-and-the-fingerprint: the transaction and the
lines (amount, category, memo), all from the arguments. The PUT sends the transaction's fields as read when
the answer comes; a transaction that can no longer be split so (split meanwhile, another
amount) is refused then, like on the first call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import BaseModel, Field

from confirmations.preview import Preview
from mcp_surface.arguments import MAX_IDS, AmountValue, PlanIdArg, amount_arg, given_text, id_arg
from mcp_surface.presenting import category_name, memo, money
from mcp_surface.registry import write_tool
from tools.logic.recategorise import shown_category_id
from tools.logic.splits import SplitLine, checked_split, split_lines_refusal
from tools.logic.transaction_lines import category_shown, payee_shown, shown_name, statement_amount
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from values.refusal import Refusal
from ynab_client import PlanSnapshot, YnabClient
from ynab_client.snapshot import Category, Transaction

TOOL = "split_transaction"
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


class TransactionSplit(WriteResult):
    transaction_id: str
    date: str = Field(description="YYYY-MM-DD.")
    payee: str = Field(description="The payee's name (bank data: one line, at most 80 characters).")
    amount: str = Field(description="The transaction's amount, currency units; money out negative.")
    from_category: str | None = Field(description="Its category before; null when it had none.")
    lines: list[SplitLineResult] = Field(description="The split's lines, in the order given.")


@write_tool(title="Split a transaction", toolset="transactions", destructive=True, idempotent=False)
async def split_transaction(
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
    ctx: Context,
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, TransactionSplit] | InputRequiredResult:
    """Split one transaction over several categories, after the person agreed; it cannot be undone here.

    For a purchase that covers several budgets (food and household goods in one shop). The
    lines' amounts must add up to the transaction's amount to the cent, each line with its
    category; for a single category use apply_categories. Refused: transactions split already
    (YNAB's API cannot edit a split's lines), transfers, transactions on tracking accounts.
    The person is asked to confirm (a question in their client, or a confirmation code to
    return only once they agreed). Only YNAB itself can undo a split: undo_operation cannot,
    and the preview says so.
    """
    transaction = id_arg(transaction_id, what="transaction")
    checked = _check_lines(lines)
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=TransactionSplit,
        build=lambda snapshot: build_change(snapshot, transaction, checked),
        apply=_apply,
    )


def _check_lines(lines: list[LineToSplit]) -> list[SplitLine]:
    """The lines' amounts, categories and memos checked, at least two, none zero: before any request."""
    checked = [
        SplitLine(
            amount=amount_arg(line.amount, field=f"amount of line {index}"),
            category_id=id_arg(line.category_id, what="category"),
            memo=given_text(line.memo, field=f"memo of line {index}", max_length=MEMO_LIMIT),
        )
        for index, line in enumerate(lines, start=1)
    ]
    refusal = split_lines_refusal(checked)
    if refusal is not None:
        raise Refusal(refusal)
    return checked


@dataclass(frozen=True)
class SplitRecord:
    """What the log keeps of a split (not undoable: settling reads it in `oplog.settling.from_state`):
    the transaction and its category before. Stored as `{"transaction_id", "category_before"}`."""

    transaction_id: str
    category_before: str | None

    def to_json(self) -> dict[str, Any]:
        return {"transaction_id": self.transaction_id, "category_before": self.category_before}

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> SplitRecord:
        return cls(stored["transaction_id"], stored["category_before"])


def build_change(snapshot: PlanSnapshot, transaction_id: str, lines: list[SplitLine]) -> Change:
    transaction, categories = checked_split(snapshot, transaction_id, lines)
    before = shown_category_id(snapshot, transaction.category_id)
    payee = payee_shown(snapshot, transaction)
    amount = statement_amount(snapshot, transaction.amount)
    subject = {
        "transaction_id": transaction.id,
        "lines": [{"amount": ln.amount, "category_id": ln.category_id, "memo": ln.memo} for ln in lines],
    }
    return Change(
        subject=subject,
        stored_subject={
            "transaction_id": transaction.id,
            "line_category_ids": [ln.category_id for ln in lines],
        },
        preview=Preview(
            question=f"Split {transaction.date.isoformat()} {payee} {amount} into {len(lines)} lines?",
            lines=[_line(snapshot, ln, category) for ln, category in zip(lines, categories, strict=True)],
            notes=[NOT_UNDOABLE],
        ),
        fields={
            "transaction_id": transaction.id,
            "date": transaction.date.isoformat(),
            "payee": payee,
            "amount": money(snapshot, transaction.amount),
            "from_category": category_name(snapshot, before),
            "lines": [
                SplitLineResult(
                    amount=money(snapshot, ln.amount),
                    category=category_shown(snapshot, c.id),
                    memo=memo(ln.memo),
                )
                for ln, c in zip(lines, categories, strict=True)
            ],
        },
        undoable=False,
        undo_data=SplitRecord(transaction.id, transaction.category_id),
        check=CHECK,
    )


def _line(snapshot: PlanSnapshot, line: SplitLine, category: Category) -> str:
    text = f"{category_shown(snapshot, category.id)}: {statement_amount(snapshot, line.amount)}"
    if line.memo is not None:
        text += f", memo: {shown_name(line.memo, '')}"
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


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change) -> Applied:
    transaction = snapshot.transactions[change.subject["transaction_id"]]
    fields = {
        **current_fields(transaction),
        "category_id": None,
        "subtransactions": [dict(line) for line in change.subject["lines"]],
    }
    await client.put_transaction(snapshot.plan_id, transaction.id, fields, check_hint=CHECK)
    return Applied(lead=f"Split the transaction into {len(change.subject['lines'])} lines.")
