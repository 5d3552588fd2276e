"""`create_transactions`: enter transactions on one account, once the person agreed
(docs/tools.md#create_transactions), and its undo (docs/undo.md#create_transactions): the created transactions
deleted, where still exactly as created.

The checks are `tools.logic.new_transactions`; the path (plan read, question, log,
request) is `tools.writes.flow`. One `POST /plans/{plan_id}/transactions` with the list,
each cleared, with the `approved` given, no `import_id`. The log keeps the created ids and
a digest of each (never their payee, memo or amount); before sending, each line's content as a
digest and the same-content transactions already there (`tools.logic.landed_creations`), so a
lost answer is settled by finding them (docs/undo.md#create_transactions-whose-answer-was-lost).

The subject is exactly that of docs/confirmation.md#subjects-and-the-fingerprint: the account, the
transactions (date, amount, payee, memo, category) and `approved`, all from the arguments. A look-alike that
appears between the preview and the answer does not stop the person's yes to the same request.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import BaseModel, Field

from confirmations.preview import Preview
from mcp_surface.arguments import MAX_IDS, AmountValue, PlanIdArg, amount_arg, date_arg, given_text, id_arg
from mcp_surface.plan_lookup import today
from mcp_surface.presenting import account_name, category_name, memo, money, name
from mcp_surface.registry import write_tool
from oplog.models import Operation
from oplog.undo import Conflict, UndoItems, UndoPlan, UndoRecord, undo_handler
from tools.logic.landed_creations import asked_lines
from tools.logic.new_transactions import (
    CheckedLine,
    CreationUndo,
    LoggedCreation,
    NewLine,
    answer_digest,
    check_date,
    new_transactions,
    undo_state,
)
from tools.logic.transaction_lines import category_shown, shown_name, statement_amount, transaction_line
from tools.writes.flow import Applied, Change, ConfirmationArg, WriteResult, confirmed_write
from ynab_client import PlanSnapshot, UnknownOutcome, YnabClient, YnabError
from ynab_client.errors import WriteFailed
from ynab_client.snapshot import Transaction

TOOL = "create_transactions"
CHECK = "Check with find_transactions on that account whether they are there before trying again."
PAYEE_LIMIT = 200
MEMO_LIMIT = 500


class TransactionToCreate(BaseModel):
    date: str = Field(
        description="YYYY-MM-DD, from 5 years ago to today (YNAB refuses future and older dates).",
        max_length=40,
    )
    amount: AmountValue = Field(
        description='Currency units as a decimal string like "-12.34" (money out negative, in positive); '
        "at most 3 decimals."
    )
    payee_name: str = Field(description="The payee, 1-200 characters.", max_length=1000)
    memo: str | None = Field(default=None, description="A memo, at most 500 characters.", max_length=2000)
    category_id: str | None = Field(
        default=None,
        description="Its category (get_category_balances); null for none. None on a tracking account.",
    )


class CreatedTransaction(BaseModel):
    date: str = Field(description="YYYY-MM-DD.")
    amount: str = Field(description="Currency units; money out negative, money in positive.")
    payee: str = Field(description="The payee given (one line, at most 80 characters).")
    category: str | None = Field(description="Its category's name; null for none.")
    memo: str | None = Field(description="The memo given (one line, at most 80 characters); null for none.")


class TransactionsCreated(WriteResult):
    account: str = Field(description="The account's name.")
    transactions: list[CreatedTransaction] = Field(description="The transactions, in the order given.")
    created_ids: list[str] = Field(description="The new transactions' ids, once applied; empty before.")


@write_tool(title="Create transactions", toolset="transactions", destructive=False, idempotent=False)
async def create_transactions(
    account_id: Annotated[str, Field(description="The account (list_accounts), open.", max_length=100)],
    transactions: Annotated[
        list[TransactionToCreate],
        Field(
            min_length=1,
            max_length=MAX_IDS,
            description=f"1-{MAX_IDS} transactions to enter on that account.",
        ),
    ],
    ctx: Context,
    approved: Annotated[
        bool, Field(description="Whether they are entered approved (false: the person reviews them in YNAB).")
    ] = False,
    plan_id: PlanIdArg = None,
    confirmation: ConfirmationArg = None,
) -> Annotated[CallToolResult, TransactionsCreated] | InputRequiredResult:
    """Enter transactions the bank did not bring (cash, a lost line) on one account, once the person agreed.

    First check they are really missing: list_accounts (a broken bank link?), import_transactions,
    then find_transactions on that account and dates. They are entered cleared, unapproved
    unless `approved` is true. A line that looks like a transaction already on the account
    (same amount and payee, within 3 days) or like another line says so in the preview, so the
    person can spot a duplicate. Dates after today are refused (YNAB's schedules cover the
    future), as are dates more than 5 years ago and categories on tracking accounts. The person
    is asked to confirm (a question in their client, or a confirmation code to return only once
    they agreed). undo_operation with the operation id deletes the transactions still exactly as
    created.
    """
    account = id_arg(account_id, what="account")
    lines = _check_transactions(transactions)
    return await confirmed_write(
        ctx,
        tool=TOOL,
        plan_id=plan_id,
        confirmation=confirmation,
        result=TransactionsCreated,
        build=lambda snapshot: build_change(snapshot, account, lines, approved),
        apply=_apply,
    )


def _check_transactions(transactions: list[TransactionToCreate]) -> list[NewLine]:
    """Each line's date, amount, text and category id checked: before any request."""
    lines, day = [], today()
    for index, given in enumerate(transactions, start=1):
        when = date_arg(given.date, field=f"date of transaction {index}")
        check_date(index, when, day)
        lines.append(
            NewLine(
                date=when,
                amount=amount_arg(given.amount, field=f"amount of transaction {index}"),
                payee_name=given_text(
                    given.payee_name, field=f"payee_name of transaction {index}", max_length=PAYEE_LIMIT
                )
                or "",
                memo=given_text(given.memo, field=f"memo of transaction {index}", max_length=MEMO_LIMIT),
                category_id=id_arg(given.category_id, what="category")
                if given.category_id is not None
                else None,
            )
        )
    return lines


def build_change(snapshot: PlanSnapshot, account_id: str, lines: list[NewLine], approved: bool) -> Change:
    account, checked = new_transactions(snapshot, account_id, lines, today())
    shown_account = name(account.name)
    subject = {
        "account_id": account.id,
        "approved": approved,
        "transactions": [_subject_item(item) for item in checked],
    }
    stored = {
        "account_id": account.id,
        "approved": approved,
        "transactions": [
            {"date": i.line.date.isoformat(), "category_id": i.line.category_id} for i in checked
        ],
    }
    return Change(
        subject=subject,
        stored_subject=stored,
        preview=Preview(
            question=f"Create {len(checked)} transaction(s) on {shown_account}?",
            lines=[_line(snapshot, item) for item in checked],
        ),
        fields={
            "account": account_name(snapshot, account.id),
            "transactions": [_entry(snapshot, item) for item in checked],
            "created_ids": [],
        },
        undo_data=CreationUndo(
            account.id,
            asked=asked_lines(
                snapshot,
                account.id,
                [(i.line.date.isoformat(), i.line.amount, i.line.payee_name, i.line.memo) for i in checked],
            ),
            knowledge=snapshot.server_knowledge,
        ),
        check=CHECK,
    )


def _subject_item(item: CheckedLine) -> dict[str, Any]:
    line = item.line
    return {
        "date": line.date.isoformat(),
        "amount": line.amount,
        "payee_name": line.payee_name,
        "memo": line.memo,
        "category_id": line.category_id,
    }


def _line(snapshot: PlanSnapshot, item: CheckedLine) -> str:
    line = item.line
    parts = [
        line.date.isoformat(),
        shown_name(line.payee_name, "(no payee)"),
        statement_amount(snapshot, line.amount),
        category_shown(snapshot, line.category_id),
    ]
    text = ", ".join(parts)
    if line.memo is not None:
        text += f", memo: {shown_name(line.memo, '')}"
    if item.looks_like is not None:
        like = item.looks_like
        text += f" (looks like {like.date.isoformat()}, {shown_name(like.payee, '(no payee)')})"
    return text


def _entry(snapshot: PlanSnapshot, item: CheckedLine) -> CreatedTransaction:
    line = item.line
    return CreatedTransaction(
        date=line.date.isoformat(),
        amount=money(snapshot, line.amount),
        payee=name(line.payee_name),
        category=category_name(snapshot, line.category_id),
        memo=memo(line.memo),
    )


async def _apply(client: YnabClient, snapshot: PlanSnapshot, change: Change) -> Applied:
    subject = change.subject
    bodies = [
        {
            "account_id": subject["account_id"],
            "date": item["date"],
            "amount": item["amount"],
            "payee_name": item["payee_name"],
            "memo": item["memo"],
            "category_id": item["category_id"],
            "cleared": "cleared",
            "approved": subject["approved"],
        }
        for item in subject["transactions"]
    ]
    data = await client.post_transactions(snapshot.plan_id, bodies, check_hint=CHECK)
    created = {t["id"]: t for t in data.get("transactions") or []}
    ids = [i for i in data.get("transaction_ids") or created if i in created]  # in the order sent
    logged = tuple(LoggedCreation(i, answer_digest(created[i])) for i in ids)
    return Applied(
        fields={"created_ids": ids},
        undo_data=CreationUndo(subject["account_id"], logged),
        lead=f"Created {len(ids)} transaction(s).",
    )


@undo_handler(TOOL)
class CreateTransactionsUndo:
    """Deletes each created transaction still exactly as created; one changed since is a conflict."""

    def plan(self, snapshot: PlanSnapshot, op: Operation) -> UndoPlan[str]:
        logged = CreationUndo.from_json(op.undo_data)
        items: UndoItems[str] = UndoItems()
        for item in logged.transactions:
            state, reason = undo_state(snapshot, item)
            if state == "restore":
                transaction = snapshot.transactions[item.transaction_id]
                items.restore(item.transaction_id, _undo_line(snapshot, transaction))
            elif state == "already_as_before":
                items.already_as_before()
            else:
                transaction = snapshot.transactions[item.transaction_id]
                items.conflict(Conflict(item.transaction_id, transaction_line(snapshot, transaction), reason))
        return items.plan(
            f"Undo: delete {items.restored} transaction(s) on {account_name(snapshot, logged.account_id)}?",
            _how_found(logged, op),
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, plan: UndoPlan
    ) -> UndoRecord:
        deleted: list[str] = []
        for transaction_id in plan.restorable:
            try:
                await client.delete_transaction(snapshot.plan_id, transaction_id, check_hint=CHECK)
            except UnknownOutcome:
                raise  # the undo row becomes unknown; undoing again deletes only what is still there
            except YnabError as error:
                if not deleted:
                    raise
                raise _partial_delete_failure(deleted, plan, error) from error
            deleted.append(transaction_id)
        return UndoRecord(deleted_ids=tuple(deleted))


def _how_found(logged: CreationUndo, op: Operation) -> tuple[str, ...]:
    """What the undo says of transactions whose ids YNAB's answer never gave: found by their
    content when settling found them, else that it looked and found none, and how."""
    if logged.found_by_content:
        ids = ", ".join(item.transaction_id for item in logged.transactions)
        return (
            "YNAB's answer was lost; these were found afterwards by their date, amount, payee and memo "
            f"({ids}).",
        )
    if logged.transactions:
        return ()
    return (
        "YNAB's answer was lost, so its transactions' ids were never learnt, and looking for them by "
        f"their date, amount, payee and memo found none to delete ({op.error or 'not settled yet'})",
    )


def _undo_line(snapshot: PlanSnapshot, transaction: Transaction) -> str:
    category = (
        "Split" if snapshot.is_split(transaction) else category_shown(snapshot, transaction.category_id)
    )
    return f"{transaction_line(snapshot, transaction)}, {category}"


def _partial_delete_failure(deleted: list[str], plan: UndoPlan, error: YnabError) -> WriteFailed:
    left = plan.restored - len(deleted)
    message = (
        f"{len(deleted)} of the {plan.restored} transaction(s) were deleted ({', '.join(deleted)}); "
        f"the other {left} are still in YNAB because a delete failed: {error.message} "
        "Call undo_operation again to delete the rest (what is gone already counts as done)."
    )
    return WriteFailed(message, undo_data=UndoRecord(deleted_ids=tuple(deleted)))
