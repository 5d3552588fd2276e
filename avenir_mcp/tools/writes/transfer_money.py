"""`transfer_money`: move money from one account to another, a credit card payment included, once
the person agreed (docs/tools.md#transfer_money), and its undo (docs/undo.md#transfer_money): the
transfer deleted, both sides, while it is still exactly as created.

The checks are `tools.logic.transfers`. One `POST /plans/{plan_id}/transactions` on the source
account: the amount as money out, the destination's transfer payee as payee, cleared and
approved, no `import_id` (YNAB would then not match it with the bank's line); YNAB enters the
other side itself. The log keeps both sides' ids (the source first) and a digest of the date,
amount, accounts and memo as created (never the amount or memo); before sending, the source
side's content as a digest and the same-content transactions already there
(`tools.logic.landed_creations`), so a lost answer is settled by finding the transfer
(docs/undo.md#transfer_money-whose-answer-was-lost), never by sending it again.

The subject is that of docs/confirmation.md#subjects-and-the-fingerprint: both accounts, the
amount, date, memo and category; the log keeps the accounts, date and category only. A transfer
counted in a category also shows that category's available amount before → after
(`tools.writes.consequences`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import AmountValue, amount_arg, date_arg, given_text, id_arg
from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.mcp_surface.presenting import account_name, money
from avenir_mcp.oplog.changes import Applied, Change
from avenir_mcp.oplog.kinds import PREFIX, SettledStatus, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, UndoRecord
from avenir_mcp.tools.logic.available import ActivityMove, transaction_moves
from avenir_mcp.tools.logic.landed_creations import (
    AskedLine,
    Settled,
    asked_lines,
    find_landed,
    settled_by_content,
    settled_by_delta,
)
from avenir_mcp.tools.logic.transaction_lines import transaction_line
from avenir_mcp.tools.logic.transfers import (
    Transfer,
    source_digest,
    transfer,
    transfer_arguments_refusal,
    transfer_digest,
    undo_state,
)
from avenir_mcp.tools.writes.consequences import available_consequences
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.text import in_quotes, listed, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient
from avenir_mcp.ynab_client.snapshot import parse_plan_delta

CHECK = (
    "Check with find_transactions on the source account whether the transfer is there before trying again."
)
MEMO_LIMIT = 500
SETTLED_AS: dict[str, SettledStatus] = {
    "all": "applied",
    "part": "applied",
    "none": "failed",
    "unsure": "unknown",
}


class TransferredFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    from_account: str = Field(description="The account the money leaves (its name).")
    to_account: str = Field(
        description="The account the money goes to (its name): a card for a card payment."
    )
    amount: str = Field(description="The amount transferred, currency units, above zero.")
    date: str = Field(description="YYYY-MM-DD.")
    category: str | None = Field(
        description="The category it counts in on the budget side (a transfer between an on-budget and a "
        "tracking account); null for none."
    )
    transaction_ids: list[str] = Field(
        description="Once applied, the transfer's two transactions: the source account's side first, then "
        "the destination's; empty before."
    )


class Transferred(TransferredFields, WriteResult):
    pass


@dataclass(frozen=True)
class Transferring:
    """transfer_money's arguments, checked: both accounts, the amount (milliunits, above zero), the
    date, memo and category."""

    from_account_id: str
    to_account_id: str
    amount: int
    date: date
    memo: str | None
    category_id: str | None


class TransferSubject(Subject):
    """Both accounts, the amount, date, memo and category; the log keeps no amount nor memo."""

    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"amount", "memo"})

    from_account_id: str
    to_account_id: str
    amount: int
    date: date
    memo: str | None
    category_id: str | None


class TransferUndo(Record):
    """transfer_money's undo data: the accounts and date; before sending, the source side as
    `asked` (its content's digest, and the same-content transactions already there) and the plan's
    `knowledge` the write was sent on, for settling a lost answer; once known, both sides' ids
    (`transaction_ids`, the source first) and the `digest` of the transfer as created;
    `found_by_content` when settling found them."""

    from_account_id: str
    to_account_id: str
    date: str
    asked: AskedLine
    knowledge: int
    transaction_ids: tuple[str, ...] = ()
    digest: str | None = None
    found_by_content: bool = False

    def stored(self) -> dict[str, Any]:
        left_out = {"digest"} if self.digest is None else set()
        left_out |= set() if self.found_by_content else {"found_by_content"}
        return self.model_dump(mode="json", exclude=left_out)


@dataclass(frozen=True)
class TransferSides:
    """What the undo deletes: the source side (YNAB deletes its pair with it), and the pair."""

    source_id: str
    pair_id: str


Transferal = Change[TransferSubject, TransferredFields, TransferUndo]


class TransferMoney(WriteTool[Transferring, TransferSubject, TransferredFields, TransferUndo]):
    """Enters one transfer; undone while it is exactly as created; a lost answer settled by content."""

    name = "transfer_money"
    result = Transferred

    def build(self, snapshot: PlanSnapshot, arguments: Transferring) -> Transferal:
        checked = transfer(
            snapshot, arguments.from_account_id, arguments.to_account_id, arguments.category_id
        )
        day = arguments.date.isoformat()
        moves = (
            [ActivityMove(checked.category.id, arguments.date, checked.budget_activity(arguments.amount))]
            if checked.category is not None
            else []
        )
        consequences, notes = available_consequences(snapshot, moves)
        asked = (day, -arguments.amount, checked.payee.name, arguments.memo)
        return Change(
            subject=TransferSubject(
                from_account_id=checked.source.id,
                to_account_id=checked.destination.id,
                amount=arguments.amount,
                date=arguments.date,
                memo=arguments.memo,
                category_id=arguments.category_id,
            ),
            preview=Preview(
                question=_question(snapshot, checked, arguments),
                lines=[f"memo: {in_quotes(arguments.memo)}"] if arguments.memo is not None else [],
                consequences=consequences,
                notes=notes,
            ),
            fields=TransferredFields(
                from_account=shown_name(checked.source.name),
                to_account=shown_name(checked.destination.name),
                amount=money(snapshot, arguments.amount),
                date=day,
                category=shown_name(checked.category.name) if checked.category is not None else None,
                transaction_ids=[],
            ),
            undo_data=TransferUndo(
                from_account_id=checked.source.id,
                to_account_id=checked.destination.id,
                date=day,
                asked=asked_lines(snapshot, checked.source.id, [asked])[0],
                knowledge=snapshot.server_knowledge,
            ),
            check=CHECK,
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, change: Transferal
    ) -> Applied[TransferredFields]:
        subject, fields = change.subject, change.fields
        body = {
            "account_id": subject.from_account_id,
            "date": subject.date.isoformat(),
            "amount": -subject.amount,
            "payee_id": snapshot.accounts[subject.to_account_id].transfer_payee_id,
            "memo": subject.memo,
            "category_id": subject.category_id,
            "cleared": "cleared",
            "approved": True,
        }
        data = await client.post_transactions(snapshot.plan_id, [body], check_hint=CHECK)
        created = data["transactions"][0]
        ids = [created["id"], created["transfer_transaction_id"]]
        digest = transfer_digest(
            created["date"],
            created["amount"],
            created["account_id"],
            created["transfer_account_id"],
            created.get("memo"),
        )
        return Applied(
            fields=fields.model_copy(update={"transaction_ids": ids}),
            undo_data=change.undo_data.model_copy(update={"transaction_ids": tuple(ids), "digest": digest}),
            lead=(
                f"Transferred {shown_amount(snapshot.settings.currency_format, subject.amount)} "
                f"from {fields.from_account} to {fields.to_account}."
            ),
        )

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[TransferSides]:
        logged = TransferUndo.from_stored(op.undo_data)
        accounts = (
            f"from {account_name(snapshot, logged.from_account_id)} to "
            f"{account_name(snapshot, logged.to_account_id)} on {logged.date}"
        )
        if not logged.transaction_ids or logged.digest is None:
            return Reversal(question=f"Undo: delete the transfer {accounts}?", notes=(_never_learnt(op),))
        source_id, pair_id = logged.transaction_ids
        state, reason = undo_state(snapshot, source_id, pair_id, logged.digest)
        question = f"Undo: delete the transfer {accounts}?"
        if state == "already_as_before":
            return Reversal(question=question, already_as_before=1)
        source, pair = snapshot.transactions.get(source_id), snapshot.transactions.get(pair_id)
        if state == "conflict" or source is None or pair is None:
            shown = source or pair
            name = transaction_line(snapshot, shown) if shown is not None else f"transaction {source_id}"
            return Reversal(question=question, conflicts=(Conflict(source_id, name, reason),))
        amount = shown_amount(snapshot.settings.currency_format, -source.amount)
        moves = [*transaction_moves(snapshot, source, sign=-1), *transaction_moves(snapshot, pair, sign=-1)]
        consequences, notes = available_consequences(snapshot, moves)
        found = (_found_by_content(logged),) if logged.found_by_content else ()
        return Reversal(
            question=f"Undo: delete the transfer of {amount} {accounts}?",
            restorable=(TransferSides(source_id, pair_id),),
            consequences=consequences,
            notes=(*notes, *found),
        )

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[TransferSides]
    ) -> UndoRecord:
        (sides,) = reversal.restorable
        await client.delete_transaction(snapshot.plan_id, sides.source_id, check_hint=CHECK)
        return UndoRecord(deleted_ids=(sides.source_id, sides.pair_id))

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        """The transfer of a lost answer found by its source side's content
        (`tools.logic.landed_creations`), else the plan's delta since the write tells whether it
        entered anything."""
        logged = TransferUndo.from_stored(op.undo_data)
        account = account_name(snapshot, logged.from_account_id)
        asked = (logged.asked,)
        landing = find_landed(snapshot, logged.from_account_id, asked, await _taken_elsewhere(op))
        by_content = settled_by_content(asked, landing, account)
        if by_content is not None:
            found = [
                logged.model_copy(
                    update={
                        "transaction_ids": (t.id, t.transfer_transaction_id or ""),
                        "digest": source_digest(t),
                        "found_by_content": True,
                    }
                )
                for _number, t in landing.found
            ]
            return _settlement(by_content, found[0] if found else None)
        delta = parse_plan_delta(await client.get_plan(snapshot.plan_id, logged.knowledge)).transactions
        touched = sum(1 for t in delta.upserts if t.account_id == logged.from_account_id)
        return _settlement(settled_by_delta(asked, account, touched, len(delta.deleted_ids)))


@write_tool(
    TransferMoney(),
    title="Transfer money between accounts",
    toolset="accounts",
    destructive=False,
    idempotent=False,
)
def transfer_money(
    from_account_id: Annotated[
        str, Field(description="The account the money leaves (list_accounts), open.", max_length=100)
    ],
    to_account_id: Annotated[
        str,
        Field(
            description="The account it goes to (list_accounts), open: the card itself for a credit card "
            "payment.",
            max_length=100,
        ),
    ],
    amount: Annotated[
        AmountValue,
        Field(
            description='The amount to transfer, in currency units, above zero (e.g. "500.00"); '
            "at most 3 decimals."
        ),
    ],
    date: Annotated[
        str | None,
        Field(
            description="YYYY-MM-DD, today or earlier (at most 5 years ago); default today.", max_length=40
        ),
    ] = None,
    memo: Annotated[str | None, Field(description="A memo, at most 500 characters.", max_length=2000)] = None,
    category_id: Annotated[
        str | None,
        Field(
            description="Only between an on-budget and a tracking account: the category it counts in on the "
            "budget side (get_category_balances). Null between two on-budget or two tracking accounts.",
            max_length=100,
        ),
    ] = None,
) -> Transferring:
    """Record a transfer between two accounts, a credit card payment included, once the person agreed.

    A card payment is a transfer from the paying account (e.g. checking) to the card. YNAB
    enters both sides: money out of the source, the same amount into the destination, dated
    `date` (default today; future dates are refused: a transfer to come is a scheduled
    transaction), cleared and approved. Between an on-budget and a tracking account (a
    mortgage, an investment) YNAB counts it as spending or income on the budget side, so
    `category_id` is then required; between two on-budget or two tracking accounts it is
    refused. First check with find_transactions that the bank has not brought the transfer
    already. The person is asked to confirm (`Transfer 500.00 from Checking to Visa on
    2026-09-12?`) in their client, or you get a confirmation code to return only once they
    agreed. undo_operation with the operation id deletes both sides while the transfer is
    still exactly as created.
    """
    day = today()
    transferring = Transferring(
        from_account_id=id_arg(from_account_id, what="account"),
        to_account_id=id_arg(to_account_id, what="account"),
        amount=amount_arg(amount),
        date=date_arg(date, field="date") if date is not None else day,
        memo=given_text(memo, field="memo", max_length=MEMO_LIMIT),
        category_id=id_arg(category_id, what="category") if category_id is not None else None,
    )
    refusal = transfer_arguments_refusal(
        transferring.from_account_id, transferring.to_account_id, transferring.amount, transferring.date, day
    )
    if refusal is not None:
        raise refusal
    return transferring


def _question(snapshot: PlanSnapshot, checked: Transfer, arguments: Transferring) -> str:
    amount = shown_amount(snapshot.settings.currency_format, arguments.amount)
    question = (
        f"Transfer {amount} from {shown_name(checked.source.name)} to {shown_name(checked.destination.name)} "
        f"on {arguments.date.isoformat()}"
    )
    if checked.category is not None:
        question = listed([question, f"counted as {shown_name(checked.category.name)}"])
    return f"{question}?"


async def _taken_elsewhere(op: Operation) -> set[str]:
    """The source sides the plan's other transfer_money rows hold as theirs."""
    others = Operation.objects.filter(plan_id=op.plan_id, tool=op.tool).exclude(pk=op.pk)
    stored = [data async for data in others.values_list("undo_data", flat=True) if data]
    return {
        TransferUndo.from_stored(data).transaction_ids[0] for data in stored if data.get("transaction_ids")
    }


def _settlement(settled: Settled, undo_data: TransferUndo | None = None) -> Settlement:
    """What landed, as the log records it: `applied` when the transfer was found."""
    return Settlement(SETTLED_AS[settled.landed], f"{PREFIX} {settled.said}", settled.landed, undo_data)


def _found_by_content(logged: TransferUndo) -> str:
    return (
        "YNAB's answer was lost; this transfer was found afterwards by its date, amount, accounts and memo "
        f"({', '.join(logged.transaction_ids)})."
    )


def _never_learnt(op: Operation) -> str:
    return (
        "YNAB's answer was lost, so the transfer's ids were never learnt, and looking for it by its date, "
        f"amount, accounts and memo found none to delete ({op.error or 'not settled yet'})"
    )
