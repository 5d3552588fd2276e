"""`update_transactions`: correct transactions' date, amount, payee, memo, cleared status or
account, once the person agreed (docs/tools.md#update_transactions), and its undo
(docs/undo.md#update_transactions): each transaction changed back where every field is still as
the operation left it.

The checks are `tools.logic.transaction_edits`. The preview, and the undo's, also show what a
new amount or date leaves available in the categories it moves
(docs/confirmation.md#what-a-change-leaves-available). One bulk `PATCH /plans/{plan_id}/transactions`
with each transaction's changed fields (`payee_name` lets YNAB find or create the payee). The log
keeps, per transaction, each changed field before and after, a payee as its id and name (the id
of a payee YNAB created learnt from its answer): `{"transactions": [{"id", "fields": [{"field",
"before", "after"}, ...]}, ...]}`. Undo needs the values it restores, so this undo data holds
payees, memos and amounts (docs/undo.md#update_transactions); the stored subject keeps only the
transactions, their dates, cleared statuses and accounts after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import (
    MAX_IDS,
    AmountValue,
    amount_arg,
    check_ids,
    date_arg,
    given_text,
    id_arg,
)
from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.mcp_surface.presenting import account_name, memo, money
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.undo import Conflict, Reversal, ReversalItems, UndoRecord
from avenir_mcp.tools.logic.available import ActivityMove
from avenir_mcp.tools.logic.new_transactions import check_date
from avenir_mcp.tools.logic.transaction_edits import (
    FIELD_WORDS,
    Edit,
    EditField,
    FieldChange,
    PayeeValue,
    TransactionEdit,
    TransactionEdits,
    Value,
    edit_moves,
    edit_state,
    transaction_edits,
)
from avenir_mcp.tools.logic.transaction_lines import payee_shown, transaction_line, transaction_line_by_id
from avenir_mcp.tools.writes.consequences import available_consequences
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import in_quotes, listed, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check with find_transactions whether the transactions changed before trying again."
PAYEE_LIMIT = 200
MEMO_LIMIT = 500
PRIVATE_FIELDS = frozenset({"amount", "payee_name", "memo"})
"""Fields whose values the stored subject leaves out (docs/confirmation.md#subjects-and-the-fingerprint)."""
NONE = "none"


class TransactionUpdate(BaseModel):
    transaction_id: str = Field(description="A transaction id (find_transactions).")
    date: str | None = Field(
        default=None,
        description="Its new date, YYYY-MM-DD, up to today (schedules cover the future).",
        max_length=40,
    )
    amount: Annotated[
        AmountValue | None,
        Field(
            default=None,
            description='Its new amount in currency units, a decimal string like "-12.34" (money out '
            "negative, in positive); at most 3 decimals.",
        ),
    ]
    payee_name: str | None = Field(
        default=None,
        description="Its new payee, 1-200 characters: YNAB uses the payee of that name, or creates it.",
        max_length=1000,
    )
    memo: str | None = Field(
        default=None,
        description='Its new memo, at most 500 characters; "" removes the memo.',
        max_length=2000,
    )
    cleared: Literal["cleared", "uncleared"] | None = Field(
        default=None, description="Its new cleared status: cleared (the bank shows it) or uncleared."
    )
    account_id: str | None = Field(
        default=None, description="The open account to move it to (list_accounts).", max_length=100
    )


class FieldChanged(BaseModel):
    field: str = Field(description="The field, as named in the arguments.")
    from_: str | None = Field(alias="from", description="Its value before (null: none).")
    to: str | None = Field(description="Its value after (null: none).")

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class TransactionChanged(BaseModel):
    transaction_id: str
    date: str = Field(description="YYYY-MM-DD, before the change.")
    payee: str = Field(description="The payee's name before (bank data: one line, at most 80 characters).")
    amount: str = Field(description="Currency units before; money out negative, money in positive.")
    fields: list[FieldChanged] = Field(
        description="Each changed field before → after: dates YYYY-MM-DD, amounts in currency units, payees "
        "and memos as text (one line, at most 80 characters), accounts by name."
    )


class TransactionsUpdatedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    changes: list[TransactionChanged] = Field(description="The transactions that change, as given.")
    unchanged_count: int = Field(
        description="Transactions given whose fields already had these values (skipped)."
    )


class TransactionsUpdated(TransactionsUpdatedFields, WriteResult):
    pass


@dataclass(frozen=True)
class Updating:
    """update_transactions' arguments, checked: one `Edit` per transaction, each once."""

    edits: tuple[Edit, ...]


class FieldSet(Record):
    """One field of the subject and its value after (what is sent)."""

    field: str
    to: str | int | None


class UpdateSet(Record):
    transaction_id: str
    fields: tuple[FieldSet, ...]


class UpdateSubject(Subject):
    """The transactions and each field after; the log keeps no amount, payee or memo of it."""

    updates: tuple[UpdateSet, ...]

    def stored(self) -> dict[str, Any]:
        return {
            "updates": [
                {
                    "transaction_id": update.transaction_id,
                    "fields": [
                        {"field": f.field} if f.field in PRIVATE_FIELDS else f.model_dump(mode="json")
                        for f in update.fields
                    ],
                }
                for update in self.updates
            ]
        }


class LoggedPayee(Record):
    id: str | None
    name: str | None


LoggedValue = str | int | LoggedPayee | None


class LoggedField(Record):
    """One changed field of a transaction: its value before and after (a payee with id and name)."""

    field: EditField
    before: LoggedValue
    after: LoggedValue


class LoggedUpdate(Record):
    id: str
    fields: tuple[LoggedField, ...]


class UpdateUndo(Record):
    """update_transactions' undo data: each transaction's changed fields before and after."""

    transactions: tuple[LoggedUpdate, ...] = ()


Update = Change[UpdateSubject, TransactionsUpdatedFields, UpdateUndo]


class UpdateTransactions(WriteTool[Updating, UpdateSubject, TransactionsUpdatedFields, UpdateUndo]):
    """Changes transactions' fields; undone for each transaction still as the operation left it."""

    name = "update_transactions"
    result = TransactionsUpdated

    def build(
        self, snapshot: PlanSnapshot, arguments: Updating
    ) -> Built[UpdateSubject, TransactionsUpdatedFields, UpdateUndo]:
        found = transaction_edits(snapshot, arguments.edits)
        fields = TransactionsUpdatedFields(
            changes=[_entry(snapshot, edit) for edit in found.edits], unchanged_count=found.unchanged_count
        )
        if not found.edits:
            return Change.nothing(_nothing_message(found), fields)
        updates = tuple(
            UpdateSet(
                transaction_id=edit.transaction.id,
                fields=tuple(FieldSet(field=c.field, to=_sent(c.after)) for c in edit.fields),
            )
            for edit in found.edits
        )
        moves = [move for edit in found.edits for move in edit_moves(edit.transaction, edit.fields)]
        consequences, notes = available_consequences(snapshot, moves)
        return Change(
            subject=UpdateSubject(updates=updates),
            preview=Preview(
                question=f"Change {len(found.edits)} transaction(s)?",
                lines=[_line(snapshot, edit.transaction, edit.fields) for edit in found.edits],
                consequences=consequences,
                notes=notes,
            ),
            fields=fields,
            undo_data=UpdateUndo(transactions=tuple(_logged(edit) for edit in found.edits)),
            check=CHECK,
        )

    async def apply(self, client: YnabClient, snapshot: PlanSnapshot, change: Update) -> Applied[Any]:
        logged = change.undo_data.transactions
        items = [_body(item.id, {f.field: f.after for f in item.fields}, snapshot) for item in logged]
        data = await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        payees = {t["id"]: t.get("payee_id") for t in data.get("transactions") or []}
        return Applied(
            undo_data=UpdateUndo(transactions=tuple(_payee_learnt(item, payees) for item in logged)),
            lead=f"Changed {len(items)} transaction(s).",
        )

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[LoggedUpdate]:
        items: ReversalItems[LoggedUpdate] = ReversalItems()
        moves: list[ActivityMove] = []
        for item in UpdateUndo.from_stored(op.undo_data).transactions:
            changes = _changes(item)
            state, reason = edit_state(snapshot, item.id, changes)
            if state == "restore":
                back = tuple(FieldChange(c.field, c.after, c.before) for c in changes)
                transaction = snapshot.transactions[item.id]
                items.restore(item, _line(snapshot, transaction, back))
                moves += edit_moves(transaction, back)
            elif state == "already_as_before":
                items.already_as_before()
            else:
                items.conflict(Conflict(item.id, transaction_line_by_id(snapshot, item.id), reason))
        consequences, notes = available_consequences(snapshot, moves)
        return items.reversal(
            f"Undo: change {items.restored} transaction(s) back?", tuple(notes), consequences
        )

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[LoggedUpdate]
    ) -> UndoRecord:
        items = [
            _body(item.id, {f.field: f.before for f in item.fields}, snapshot) for item in reversal.restorable
        ]
        await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        restored = tuple(
            {"transaction_id": item.id, "fields": [f.field for f in item.fields]}
            for item in reversal.restorable
        )
        return UndoRecord(restored=restored)


@write_tool(
    UpdateTransactions(),
    title="Update transactions",
    toolset="transactions",
    destructive=True,
    idempotent=True,
)
def update_transactions(
    updates: Annotated[
        list[TransactionUpdate],
        Field(
            min_length=1,
            max_length=MAX_IDS,
            description=f"1-{MAX_IDS} {{transaction_id, and the fields to change}}, each transaction once, "
            "each naming at least one of date, amount, payee_name, memo, cleared, account_id.",
        ),
    ],
) -> Updating:
    """Correct transactions' date, amount, payee, memo, cleared status or account, once the person agreed.

    For a category use apply_categories, for a flag flag_transactions, for approval
    approve_transactions. Refused: a date after today; the amount, date or account of a split
    (the person can change it in YNAB); the amount, date or account of a reconciled transaction
    (the person does it in YNAB, which asks first); the account or payee of a transfer (YNAB
    keeps both sides together: delete it and record the transfer again); a closed account, or a
    tracking account for a categorised transaction. A new amount or date on a transfer moves its
    other side too. A field already at the value given is skipped; a transaction left with none
    counts in unchanged_count. The person is asked to confirm each field before → after (a
    question in their client, or a confirmation code to return only once they agreed).
    undo_operation with the operation id changes back each transaction still as left.
    """
    ids = check_ids([u.transaction_id for u in updates], what="transaction", merge_duplicates=False) or ()
    return Updating(
        tuple(_checked(index, given, ids[index - 1]) for index, given in enumerate(updates, start=1))
    )


def _checked(index: int, given: TransactionUpdate, transaction_id: str) -> Edit:
    """One update's fields checked alone: before any request."""
    when = date_arg(given.date, field=f"date of update {index}") if given.date is not None else None
    if when is not None:
        check_date(index, when, today())
    edit = Edit(
        transaction_id=transaction_id,
        date=when,
        amount=amount_arg(given.amount, field=f"amount of update {index}")
        if given.amount is not None
        else None,
        payee_name=given_text(
            given.payee_name, field=f"payee_name of update {index}", max_length=PAYEE_LIMIT
        ),
        memo=""
        if given.memo == ""
        else given_text(given.memo, field=f"memo of update {index}", max_length=MEMO_LIMIT),
        cleared=given.cleared,
        account_id=id_arg(given.account_id, what="account") if given.account_id is not None else None,
    )
    if not edit.asked():
        raise Refusal(
            f"Update {index} (transaction {transaction_id}) names no field: give at least one of date, "
            "amount, payee_name, memo, cleared, account_id (a category: apply_categories; a flag: "
            "flag_transactions; approval: approve_transactions)."
        )
    return edit


# --- the log ---------------------------------------------------------------------------------


def _logged(edit: TransactionEdit) -> LoggedUpdate:
    return LoggedUpdate(
        id=edit.transaction.id,
        fields=tuple(
            LoggedField(field=c.field, before=_logged_value(c.before), after=_logged_value(c.after))
            for c in edit.fields
        ),
    )


def _logged_value(value: Value) -> LoggedValue:
    return LoggedPayee(id=value.id, name=value.name) if isinstance(value, PayeeValue) else value


def _changes(item: LoggedUpdate) -> tuple[FieldChange, ...]:
    """The logged fields as the logic reads them."""
    return tuple(FieldChange(f.field, _value(f.before), _value(f.after)) for f in item.fields)


def _value(logged: LoggedValue) -> Value:
    return PayeeValue(logged.id, logged.name) if isinstance(logged, LoggedPayee) else logged


def _sent(value: Value) -> str | int | None:
    """A field's value as sent: a payee by its name."""
    return value.name if isinstance(value, PayeeValue) else value


def _body(transaction_id: str, values: dict[str, LoggedValue], snapshot: PlanSnapshot) -> dict[str, Any]:
    """One item of the bulk PATCH: the fields given; a payee by id while the plan has it, else by
    name (YNAB finds or creates it), none as `payee_id: null`."""
    body: dict[str, Any] = {"id": transaction_id}
    for name, value in values.items():
        if not isinstance(value, LoggedPayee):
            body[name] = value
        elif value.id is not None and value.id in snapshot.payees:
            body["payee_id"] = value.id
        elif value.name is not None:
            body["payee_name"] = value.name
        else:
            body["payee_id"] = None
    return body


def _payee_learnt(item: LoggedUpdate, payees: dict[str, str | None]) -> LoggedUpdate:
    """The logged item with the id of a payee YNAB created (from its answer)."""
    fields = tuple(
        f.model_copy(update={"after": LoggedPayee(id=payees.get(item.id), name=f.after.name)})
        if isinstance(f.after, LoggedPayee) and f.after.id is None
        else f
        for f in item.fields
    )
    return item.model_copy(update={"fields": fields})


# --- what the person reads -------------------------------------------------------------------


def _nothing_message(found: TransactionEdits) -> str:
    return f"Nothing to change: the {found.unchanged_count} transaction(s) given already have these values."


def _line(snapshot: PlanSnapshot, transaction: Any, fields: tuple[FieldChange, ...]) -> str:
    """`2026-09-12; Market; 86.40: amount 86.40 → 68.40; memo none → ‘refund due’; cleared → uncleared`."""
    parts = [_part(snapshot, transaction, change) for change in fields]
    return f"{transaction_line(snapshot, transaction)}: {listed(parts)}"


def _part(snapshot: PlanSnapshot, transaction: Any, change: FieldChange) -> str:
    before, after = (
        _shown(snapshot, change.field, change.before),
        _shown(snapshot, change.field, change.after),
    )
    if change.field == "cleared":
        return f"{before} → {after}"
    text = f"{FIELD_WORDS[change.field]} {before} → {after}"
    if change.field == "amount" and transaction.transfer_account_id is not None:
        text += f" (and its transfer side on {account_name(snapshot, transaction.transfer_account_id)})"
    return text


def _shown(snapshot: PlanSnapshot, field: str, value: Value) -> str:
    if value is None or (isinstance(value, PayeeValue) and value.name is None):
        return NONE
    if isinstance(value, PayeeValue) or field == "memo":
        return in_quotes(value.name if isinstance(value, PayeeValue) else str(value))
    if field == "amount":
        return shown_amount(snapshot.settings.currency_format, int(value), statement=True)
    if field == "account_id":
        return account_name(snapshot, str(value))
    return str(value)


def _entry(snapshot: PlanSnapshot, edit: TransactionEdit) -> TransactionChanged:
    transaction = edit.transaction
    return TransactionChanged(
        transaction_id=transaction.id,
        date=transaction.date.isoformat(),
        payee=payee_shown(snapshot, transaction),
        amount=money(snapshot, transaction.amount),
        fields=[
            FieldChanged.model_validate(
                {
                    "field": c.field,
                    "from": _result_value(snapshot, c.field, c.before),
                    "to": _result_value(snapshot, c.field, c.after),
                }
            )
            for c in edit.fields
        ],
    )


def _result_value(snapshot: PlanSnapshot, field: str, value: Value) -> str | None:
    if isinstance(value, PayeeValue):
        return shown_name(value.name) or None
    if value is None:
        return None
    if field == "amount":
        return money(snapshot, int(value))
    if field == "memo":
        return memo(str(value))
    if field == "account_id":
        return account_name(snapshot, str(value))
    return str(value)
