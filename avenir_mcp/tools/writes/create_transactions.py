"""`create_transactions`: enter transactions on one account, once the person agreed
(docs/tools.md#create_transactions), and its undo (docs/undo.md#create_transactions): the created transactions
deleted, where still exactly as created.

The checks are `tools.logic.new_transactions`. One `POST /plans/{plan_id}/transactions` with the
list, each cleared, with the `approved` given, no `import_id`. The log keeps the created ids and
a digest of each (never their payee, memo or amount); before sending, each line's content as a
digest and the same-content transactions already there (`tools.logic.landed_creations`), so a
lost answer is settled by finding them (docs/undo.md#create_transactions-whose-answer-was-lost).

The subject is that of docs/confirmation.md#subjects-and-the-fingerprint; the log keeps each
line's date and category only. The preview, and the undo's, also show each category's
available amount before → after in each line's month (`tools.writes.consequences`). A
look-alike that appears between the preview and the answer does not stop the person's yes to
the same request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import MAX_IDS, AmountValue, amount_arg, date_arg, given_text, id_arg
from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.mcp_surface.presenting import account_name, category_name, memo, money
from avenir_mcp.oplog.changes import Applied, Change
from avenir_mcp.oplog.kinds import PREFIX, SettledStatus, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, ReversalItems, UndoRecord
from avenir_mcp.tools.logic.available import ActivityMove, transaction_moves
from avenir_mcp.tools.logic.landed_creations import (
    AskedLine,
    Settled,
    asked_lines,
    cannot_look,
    find_landed,
    settled_by_content,
    settled_by_delta,
)
from avenir_mcp.tools.logic.new_transactions import (
    CheckedLine,
    NewLine,
    answer_digest,
    check_date,
    new_transactions,
    transaction_digest,
    undo_state,
)
from avenir_mcp.tools.logic.transaction_lines import (
    category_shown,
    transaction_line,
    transaction_line_with_category,
)
from avenir_mcp.tools.writes.consequences import available_consequences
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.text import listed, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, UnknownOutcome, YnabClient, YnabError
from avenir_mcp.ynab_client.errors import WriteFailed
from avenir_mcp.ynab_client.snapshot import parse_plan_delta

CHECK = "Check with find_transactions on that account whether they are there before trying again."
PAYEE_LIMIT = 200
MEMO_LIMIT = 500
SETTLED_AS: dict[str, SettledStatus] = {
    "all": "applied",
    "part": "applied",
    "none": "failed",
    "unsure": "unknown",
}


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


class TransactionsCreatedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    account: str = Field(description="The account's name.")
    transactions: list[CreatedTransaction] = Field(description="The transactions, in the order given.")
    created_ids: list[str] = Field(description="The new transactions' ids, once applied; empty before.")


class TransactionsCreated(TransactionsCreatedFields, WriteResult):
    pass


@dataclass(frozen=True)
class Creating:
    """create_transactions' arguments, checked: the account, the lines, and `approved`."""

    account_id: str
    lines: tuple[NewLine, ...]
    approved: bool


class CreationSubject(Subject):
    """The account, `approved` and each line; the log keeps each line's date and category only."""

    account_id: str
    approved: bool
    transactions: tuple[NewLine, ...]

    def stored(self) -> dict[str, Any]:
        private = {"amount", "payee_name", "memo"}
        return self.model_dump(mode="json", exclude={"transactions": {"__all__": private}})


class LoggedCreation(Record):
    """A created transaction (`id`) and the digest of what it was created as."""

    id: str
    digest: str


class CreationUndo(Record):
    """create_transactions' undo data: the account, and each created transaction (empty until YNAB's
    answer names them, or settling finds them). Before sending, also each line `asked` and the
    plan's `knowledge` the write was sent on, so settling can find the lines of a lost answer;
    `found_by_content` once it did. Stored `{"account_id", "transactions"}`, plus `asked` and
    `knowledge` when lines were asked, and `found_by_content` when true."""

    account_id: str | None = None
    transactions: tuple[LoggedCreation, ...] = ()
    asked: tuple[AskedLine, ...] = ()
    knowledge: int | None = None
    found_by_content: bool = False

    def stored(self) -> dict[str, Any]:
        left_out = set() if self.asked else {"asked", "knowledge"}
        left_out |= set() if self.found_by_content else {"found_by_content"}
        return self.model_dump(mode="json", exclude=left_out)


Creation = Change[CreationSubject, TransactionsCreatedFields, CreationUndo]


class CreateTransactions(WriteTool[Creating, CreationSubject, TransactionsCreatedFields, CreationUndo]):
    """Enters the lines; undone while each is exactly as created; a lost answer settled by content."""

    name = "create_transactions"
    result = TransactionsCreated

    def build(self, snapshot: PlanSnapshot, arguments: Creating) -> Creation:
        account, checked = new_transactions(snapshot, arguments.account_id, arguments.lines, today())
        lines = tuple(item.line for item in checked)
        asked = [(line.date.isoformat(), line.amount, line.payee_name, line.memo) for line in lines]
        moves = [ActivityMove(line.category_id, line.date, line.amount) for line in lines]
        consequences, notes = available_consequences(snapshot, moves)
        return Change(
            subject=CreationSubject(account_id=account.id, approved=arguments.approved, transactions=lines),
            preview=Preview(
                question=f"Create {len(checked)} transaction(s) on {shown_name(account.name)}?",
                lines=[_line(snapshot, item) for item in checked],
                consequences=consequences,
                notes=notes,
            ),
            fields=TransactionsCreatedFields(
                account=account_name(snapshot, account.id),
                transactions=[_entry(snapshot, item.line) for item in checked],
                created_ids=[],
            ),
            undo_data=CreationUndo(
                account_id=account.id,
                asked=asked_lines(snapshot, account.id, asked),
                knowledge=snapshot.server_knowledge,
            ),
            check=CHECK,
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, change: Creation
    ) -> Applied[TransactionsCreatedFields]:
        subject = _subject(change)
        bodies = [
            {
                "account_id": subject.account_id,
                "date": line.date.isoformat(),
                "amount": line.amount,
                "payee_name": line.payee_name,
                "memo": line.memo,
                "category_id": line.category_id,
                "cleared": "cleared",
                "approved": subject.approved,
            }
            for line in subject.transactions
        ]
        data = await client.post_transactions(snapshot.plan_id, bodies, check_hint=CHECK)
        created = {t["id"]: t for t in data.get("transactions") or []}
        ids = [i for i in data.get("transaction_ids") or created if i in created]  # in the order sent
        logged = tuple(LoggedCreation(id=i, digest=answer_digest(created[i])) for i in ids)
        return Applied(
            fields=change.fields.model_copy(update={"created_ids": ids}),
            undo_data=CreationUndo(account_id=subject.account_id, transactions=logged),
            lead=f"Created {len(ids)} transaction(s).",
        )

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[str]:
        logged = CreationUndo.from_stored(op.undo_data)
        items: ReversalItems[str] = ReversalItems()
        moves: list[ActivityMove] = []
        for item in logged.transactions:
            state, reason = undo_state(snapshot, item.id, item.digest)
            if state == "already_as_before":
                items.already_as_before()
                continue
            transaction = snapshot.transactions[item.id]
            if state == "restore":
                items.restore(item.id, transaction_line_with_category(snapshot, transaction))
                moves += transaction_moves(snapshot, transaction, sign=-1)
            else:
                items.conflict(Conflict(item.id, transaction_line(snapshot, transaction), reason))
        consequences, notes = available_consequences(snapshot, moves)
        return items.reversal(
            f"Undo: delete {items.restored} transaction(s) on {account_name(snapshot, logged.account_id)}?",
            (*notes, *_how_found(logged, op)),
            consequences,
        )

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[str]
    ) -> UndoRecord:
        deleted: list[str] = []
        for transaction_id in reversal.restorable:
            try:
                await client.delete_transaction(snapshot.plan_id, transaction_id, check_hint=CHECK)
            except UnknownOutcome:
                raise  # the undo row becomes unknown; undoing again deletes only what is still there
            except YnabError as error:
                if not deleted:
                    raise
                raise _partial_delete_failure(deleted, reversal, error) from error
            deleted.append(transaction_id)
        return UndoRecord(deleted_ids=tuple(deleted))

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        """The lines of a lost answer found by their content (`tools.logic.landed_creations`), else
        the plan's delta since the write tells whether it entered anything."""
        logged = CreationUndo.from_stored(op.undo_data)
        account = account_name(snapshot, logged.account_id)
        if not logged.asked or logged.knowledge is None or logged.account_id is None:
            # A row logged before the log kept its lines' content: its stored subject has their dates.
            return _settlement(cannot_look([line["date"] for line in op.subject["transactions"]], account))
        landing = find_landed(snapshot, logged.account_id, logged.asked, await _taken_elsewhere(op))
        by_content = settled_by_content(logged.asked, landing, account)
        if by_content is not None:
            found = tuple(LoggedCreation(id=t.id, digest=transaction_digest(t)) for _n, t in landing.found)
            undo_data = CreationUndo(account_id=logged.account_id, transactions=found, found_by_content=True)
            return _settlement(by_content, undo_data if found else None)
        delta = parse_plan_delta(await client.get_plan(snapshot.plan_id, logged.knowledge)).transactions
        touched = sum(1 for t in delta.upserts if t.account_id == logged.account_id)
        return _settlement(settled_by_delta(logged.asked, account, touched, len(delta.deleted_ids)))


@write_tool(
    CreateTransactions(),
    title="Create transactions",
    toolset="transactions",
    destructive=False,
    idempotent=False,
)
def create_transactions(
    account_id: Annotated[str, Field(description="The account (list_accounts), open.", max_length=100)],
    transactions: Annotated[
        list[TransactionToCreate],
        Field(
            min_length=1,
            max_length=MAX_IDS,
            description=f"1-{MAX_IDS} transactions to enter on that account.",
        ),
    ],
    approved: Annotated[
        bool, Field(description="Whether they are entered approved (false: the person reviews them in YNAB).")
    ] = False,
) -> Creating:
    """Enter transactions the bank did not bring (cash, a lost line) on one account, once the person agreed.

    First check they are really missing: list_accounts (a broken bank link?), import_transactions,
    then find_transactions on that account and dates. They are entered cleared, unapproved
    unless `approved` is true. A line that looks like a transaction already on the account
    (same amount and payee, within 3 days) or like another line says so in the preview, so the
    person can spot a duplicate. Dates after today are refused (YNAB's schedules cover the
    future), as are dates more than 5 years ago and categories on tracking accounts. The person
    is asked to confirm, with each category's available amount before → after in the lines'
    months and the categories left overspent named (a question in their client, or a
    confirmation code to return only once they agreed). undo_operation with the operation id
    deletes the transactions still exactly as created.
    """
    account = id_arg(account_id, what="account")
    return Creating(account_id=account, lines=_checked_lines(transactions), approved=approved)


def _checked_lines(transactions: list[TransactionToCreate]) -> tuple[NewLine, ...]:
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
    return tuple(lines)


def _subject(change: Creation) -> CreationSubject:
    return change.subject


def _line(snapshot: PlanSnapshot, item: CheckedLine) -> str:
    line = item.line
    parts = [
        line.date.isoformat(),
        shown_name(line.payee_name, "(no payee)"),
        shown_amount(snapshot.settings.currency_format, line.amount, statement=True),
        category_shown(snapshot, line.category_id),
    ]
    if line.memo is not None:
        parts.append(f"memo: {shown_name(line.memo)}")
    text = listed(parts)
    if item.looks_like is not None:
        like = item.looks_like
        text += f" (looks like {like.date.isoformat()}, {shown_name(like.payee, '(no payee)')})"
    return text


def _entry(snapshot: PlanSnapshot, line: NewLine) -> CreatedTransaction:
    return CreatedTransaction(
        date=line.date.isoformat(),
        amount=money(snapshot, line.amount),
        payee=shown_name(line.payee_name),
        category=category_name(snapshot, line.category_id),
        memo=memo(line.memo),
    )


async def _taken_elsewhere(op: Operation) -> set[str]:
    """The transaction ids the plan's other create_transactions rows hold as theirs."""
    others = Operation.objects.filter(plan_id=op.plan_id, tool=op.tool).exclude(pk=op.pk)
    stored = [data async for data in others.values_list("undo_data", flat=True) if data]
    return {item.id for data in stored for item in CreationUndo.from_stored(data).transactions}


def _settlement(settled: Settled, undo_data: CreationUndo | None = None) -> Settlement:
    """What landed, as the log records it: in effect as far as any line landed (`applied`)."""
    status = SETTLED_AS[settled.landed]
    return Settlement(status, f"{PREFIX} {settled.said}", settled.landed, undo_data)


def _how_found(logged: CreationUndo, op: Operation) -> tuple[str, ...]:
    """What the undo says of transactions whose ids YNAB's answer never gave: found by their
    content when settling found them, else that it looked and found none, and how."""
    if logged.found_by_content:
        ids = ", ".join(item.id for item in logged.transactions)
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


def _partial_delete_failure(deleted: list[str], reversal: Reversal[str], error: YnabError) -> WriteFailed:
    left = reversal.restored - len(deleted)
    message = (
        f"{len(deleted)} of the {reversal.restored} transaction(s) were deleted ({', '.join(deleted)}); "
        f"the other {left} are still in YNAB because a delete failed: {error.message} "
        "Call undo_operation again to delete the rest (what is gone already counts as done)."
    )
    return WriteFailed(message, undo_data=UndoRecord(deleted_ids=tuple(deleted)))
