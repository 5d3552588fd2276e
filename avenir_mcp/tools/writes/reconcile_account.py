"""`reconcile_account`: compare an account with the bank, and once the person agreed mark its
cleared transactions reconciled (docs/tools.md#reconcile_account); its undo (docs/undo.md#reconcile_account).

The checks and the analysis are `tools.logic.reconcile`. A difference with no adjustment asked
for is answered `difference_found` (nothing asked, nothing written). Otherwise, once agreed:
adjusting, one `POST` of the adjustment; then one bulk `PATCH` of every cleared transaction
(the adjustment included) to `reconciled`.

Nothing is left half done: a PATCH refused after the adjustment landed deletes the adjustment
again (a rollback, as move_money sets its source back), or leaves the row pending for settling
to delete it. A lost answer is settled from YNAB's state (`settle`); an adjustment whose own
answer was lost is found in the plan's delta since the question (`knowledge_before`).

The subject is that of docs/confirmation.md#subjects-and-the-fingerprint; the log keeps the
account and whether it adjusts (no balance or amount; the undo data names the adjustment).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field, field_validator

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import AmountValue, amount_arg, id_arg
from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.mcp_surface.presenting import account_name, money
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.kinds import PREFIX, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.oplog.settling.judge import judged
from avenir_mcp.oplog.undo import Conflict, Reversal, ReversalItems, UndoRecord
from avenir_mcp.tools.logic.new_transactions import answer_digest, transaction_digest
from avenir_mcp.tools.logic.reconcile import (
    ADJUSTMENT_MEMO,
    ADJUSTMENT_PAYEE,
    CLEARED,
    UNCLEARED_SHOWN,
    Reconciliation,
    adjustment,
    adjustment_state,
    reconciled_state,
    reconciliation,
)
from avenir_mcp.tools.logic.transaction_lines import payee_shown, transaction_line, transaction_line_by_id
from avenir_mcp.tools.writes.assigned_pair import set_back_wait
from avenir_mcp.tools.writes.flow import STATUS_DESCRIPTION, WriteResult, WriteTool, write_tool
from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.text import shown_name
from avenir_mcp.ynab_client import (
    PlanSnapshot,
    RequestKind,
    UnknownOutcome,
    YnabClient,
    YnabError,
    request_kind,
)
from avenir_mcp.ynab_client.errors import WriteFailed
from avenir_mcp.ynab_client.snapshot import Transaction

CHECK = "Check with find_transactions on that account which transactions are reconciled before trying again."
NOT_MOVED = 'YNAB\'s "last reconciled" date does not move: the API cannot set it.'


class UnclearedTransaction(BaseModel):
    transaction_id: str
    date: str = Field(description="YYYY-MM-DD.")
    payee: str = Field(description="The payee's name (bank data: one line, at most 80 characters).")
    amount: str = Field(description="Currency units; money out negative, money in positive.")


class Analysis(BaseModel):
    bank_balance: str = Field(description="The balance the bank shows, as given.")
    cleared_balance: str = Field(description="The account's cleared balance in YNAB (cleared + reconciled).")
    working_balance: str = Field(description="The account's balance with uncleared transactions too.")
    difference: str = Field(description="bank_balance - cleared_balance; 0 when they agree.")
    to_reconcile_count: int = Field(description="Cleared transactions not reconciled yet (what is marked).")
    uncleared_count: int = Field(description="Uncleared transactions on the account.")
    uncleared: list[UnclearedTransaction] = Field(
        description=f"The uncleared ones, newest first, at most {UNCLEARED_SHOWN}."
    )
    explained_by: list[str] = Field(
        description="Ids of uncleared transactions whose amount equals the difference: the bank may have "
        "them already (then mark them cleared in YNAB rather than adjusting)."
    )
    possible_duplicates: list[list[str]] = Field(
        description="Pairs of ids that look like one another (same amount and payee, within 3 days, "
        "in the last 60 days)."
    )


class Adjustment(BaseModel):
    transaction_id: str | None = Field(description="The adjustment's id once entered; null before.")
    date: str = Field(description="YYYY-MM-DD (today).")
    amount: str = Field(description="The difference entered, currency units.")


class AccountReconciledFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    account: str = Field(description="The account's name.")
    analysis: Analysis
    adjustment: Adjustment | None = Field(description="The adjustment entered (or to enter); null when none.")


ReconcileStatus = Literal["applied", "declined", "confirmation_required", "nothing_to_do", "difference_found"]
"""Every write's statuses, and `difference_found` (the first answer when the balances differ)."""


class AccountReconciled(AccountReconciledFields, WriteResult[ReconcileStatus]):
    status: ReconcileStatus = Field(
        description=STATUS_DESCRIPTION + " difference_found: the bank's balance differs from the cleared "
        "balance; nothing was asked or changed: review the analysis with the person, then call again "
        "(adjust: true only if they want an adjustment entered)."
    )


@dataclass(frozen=True)
class Reconciling:
    """reconcile_account's arguments, checked: the account, the bank's balance (milliunits), `adjust`."""

    account_id: str
    bank_balance: int
    adjust: bool


class ReconcileSubject(Subject):
    """The account, the bank's balance and the difference to adjust (0 without an adjustment); the
    log keeps `{"account_id", "adjusting"}` (no balance or amount)."""

    account_id: str
    bank_balance: int
    difference: int

    def stored(self) -> dict[str, Any]:
        return {"account_id": self.account_id, "adjusting": bool(self.difference)}


class LoggedReconciliation(Record):
    """reconcile_account's undo data: the account, the transactions it marks reconciled, the
    adjustment it entered (once YNAB named it, with its digest) and the plan's knowledge before
    (settling finds a lost adjustment from it). Stored with every key, None included."""

    account_id: str
    reconciled_ids: tuple[str, ...]
    adjustment_id: str | None = None
    adjustment_digest: str | None = None
    knowledge_before: int | None = None

    @field_validator("knowledge_before", mode="before")
    @classmethod
    def _known_or_none(cls, value: object) -> object:
        """A stored value that is not a number reads as unknown (settling then claims nothing)."""
        return value if type(value) is int else None


@dataclass(frozen=True)
class Revert:
    """One item the undo puts back: a transaction returned to cleared, or the adjustment deleted."""

    transaction_id: str
    delete: bool = False


Reconcile = Change[ReconcileSubject, AccountReconciledFields, LoggedReconciliation]


class ReconcileAccount(
    WriteTool[Reconciling, ReconcileSubject, AccountReconciledFields, LoggedReconciliation]
):
    """Reconciles (after any adjustment); undone while still reconciled; settled from YNAB's state."""

    name = "reconcile_account"
    result = AccountReconciled

    def build(
        self, snapshot: PlanSnapshot, arguments: Reconciling
    ) -> Built[ReconcileSubject, AccountReconciledFields, LoggedReconciliation]:
        day = today()
        found = reconciliation(snapshot, arguments.account_id, arguments.bank_balance, day)
        account, difference, count = found.account, found.difference, len(found.to_reconcile)
        planned = Adjustment(transaction_id=None, date=day.isoformat(), amount=money(snapshot, difference))
        fields = AccountReconciledFields(
            account=account_name(snapshot, account.id),
            analysis=_analysis(snapshot, found),
            adjustment=planned if arguments.adjust and difference else None,
        )
        if difference and not arguments.adjust:
            return Change.nothing(_gap_message(snapshot, found), fields, outcome="difference_found")
        if not difference and not count:
            message = (
                "Nothing to reconcile: the cleared balance equals the bank's and every cleared transaction "
                "is reconciled already."
            )
            return Change.nothing(message, fields)
        notes = []
        if difference:
            amount = shown_amount(snapshot.settings.currency_format, difference, statement=True)
            notes.append(
                f"An adjustment of {amount} dated {day.isoformat()} is entered first, so the cleared balance "
                "equals the bank's."
            )
        return Change(
            subject=ReconcileSubject(
                account_id=account.id, bank_balance=arguments.bank_balance, difference=difference
            ),
            preview=Preview(
                question=(
                    f"Reconcile {shown_name(account.name)}: mark {count} cleared transaction(s) reconciled?"
                ),
                notes=notes,
            ),
            fields=fields,
            undo_data=LoggedReconciliation(
                account_id=account.id,
                reconciled_ids=tuple(t.id for t in found.to_reconcile),
                knowledge_before=snapshot.server_knowledge,  # settling finds a lost adjustment from it
            ),
            check=CHECK,
        )

    async def apply(
        self, client: YnabClient, snapshot: PlanSnapshot, change: Reconcile
    ) -> Applied[AccountReconciledFields]:
        subject, logged = change.subject, change.undo_data
        account, difference = snapshot.accounts[subject.account_id], subject.difference
        ids = list(logged.reconciled_ids)
        entered: dict[str, Any] | None = None
        if difference:
            body = adjustment(snapshot, account, difference, today())
            try:
                data = await client.post_transactions(snapshot.plan_id, [body], check_hint=CHECK)
            except UnknownOutcome:
                raise _adjustment_lost(snapshot, body, logged) from None
            entered = (data.get("transactions") or [{}])[0]
            logged = logged.model_copy(
                update={"adjustment_id": entered.get("id"), "adjustment_digest": answer_digest(entered)}
            )
            ids.append(entered["id"])
        items = [{"id": transaction_id, "cleared": "reconciled"} for transaction_id in ids]
        try:
            await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        except YnabError as error:
            if entered is None:
                raise
            raise await _half_done_failure(client, snapshot, difference, entered, logged, error) from error
        lead = f"Marked {len(ids)} transaction(s) on {shown_name(account.name)} reconciled"
        fields = None
        if entered is not None:
            entered_amount = shown_amount(snapshot.settings.currency_format, difference, statement=True)
            lead += f", after entering an adjustment of {entered_amount}"
            done = Adjustment(
                transaction_id=entered["id"], date=entered["date"], amount=money(snapshot, difference)
            )
            fields = change.fields.model_copy(update={"adjustment": done})
        return Applied(fields=fields, undo_data=logged, lead=f"{lead}. {NOT_MOVED}")

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[Revert]:
        logged = LoggedReconciliation.from_stored(op.undo_data)
        items: ReversalItems[Revert] = ReversalItems()
        for transaction_id in logged.reconciled_ids:
            state, reason = reconciled_state(snapshot, transaction_id)
            if state == "restore":
                line = transaction_line(snapshot, snapshot.transactions[transaction_id])
                items.restore(Revert(transaction_id), f"{line}: reconciled → cleared")
            elif state == "already_as_before":
                items.already_as_before()
            else:
                items.conflict(
                    Conflict(transaction_id, transaction_line_by_id(snapshot, transaction_id), reason)
                )
        deleting = ""
        if logged.adjustment_id is not None:
            state, reason = adjustment_state(snapshot, logged.adjustment_id, logged.adjustment_digest)
            entered = snapshot.transactions.get(logged.adjustment_id)
            if state == "restore" and entered is not None:
                line = f"{transaction_line(snapshot, entered)}: deleted"
                items.restore(Revert(logged.adjustment_id, delete=True), line)
                entered_amount = shown_amount(
                    snapshot.settings.currency_format, entered.amount, statement=True
                )
                deleting = f" and delete the {entered_amount} adjustment"
            elif state == "already_as_before":
                items.already_as_before()
            else:
                items.conflict(
                    Conflict(
                        logged.adjustment_id, transaction_line_by_id(snapshot, logged.adjustment_id), reason
                    )
                )
        returning = items.restored - (1 if deleting else 0)
        account = account_name(snapshot, logged.account_id)
        return items.reversal(f"Undo: return {returning} transaction(s) on {account} to cleared{deleting}?")

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[Revert]
    ) -> UndoRecord:
        cleared = [item.transaction_id for item in reversal.restorable if not item.delete]
        deleting = [item.transaction_id for item in reversal.restorable if item.delete]
        if cleared:
            items = [{"id": transaction_id, "cleared": CLEARED} for transaction_id in cleared]
            await client.patch_transactions(snapshot.plan_id, items, check_hint=CHECK)
        for transaction_id in deleting:
            try:
                await client.delete_transaction(snapshot.plan_id, transaction_id, check_hint=CHECK)
            except UnknownOutcome:
                raise
            except YnabError as error:
                if not cleared:
                    raise
                message = (
                    f"The {len(cleared)} transaction(s) are cleared again, but deleting the adjustment "
                    f"{transaction_id} failed: {error.message} Call undo_operation again to delete it."
                )
                raise WriteFailed(message, undo_data=UndoRecord(cleared_ids=tuple(cleared))) from error
        return UndoRecord(cleared_ids=tuple(cleared), deleted_ids=tuple(deleting))

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        """A reconciliation whose outcome is open (an answer lost, the process stopped between the
        adjustment and the marking, or an adjustment not deleted yet), judged on YNAB's state:

        - without an adjustment: item by item from the reversal (`judged`);
        - the adjustment in YNAB (by its logged id, or found in the plan's delta since the question
          when its answer was lost) and every transaction marked reconciled → `applied`, the
          adjustment's id recorded for undo;
        - the adjustment in YNAB and nothing marked → the adjustment is deleted (a rollback):
          `failed`, nothing changed; while that cannot be done the row stays pending;
        - no adjustment in YNAB and nothing marked → `failed`;
        - anything else (the adjustment changed since, two candidates, part marked) → `judged`, or
          `unknown` saying what to check.
        """
        logged = LoggedReconciliation.from_stored(op.undo_data)
        adjusting = isinstance(op.subject, dict) and bool(op.subject.get("adjusting"))
        if not adjusting:
            return judged(self.reversal(snapshot, op))
        found = await _adjustment_in_ynab(client, snapshot, op, logged)
        states = {reconciled_state(snapshot, t)[0] for t in logged.reconciled_ids}
        marked, unmarked = states == {"restore"}, states <= {"already_as_before"}
        if found == "unsure":
            account = account_name(snapshot, logged.account_id)
            said = (
                f"{PREFIX} YNAB cannot tell whether the adjustment landed: check find_transactions on "
                f"{account} for a '{ADJUSTMENT_PAYEE}' dated {op.created_at.date().isoformat()}, and which "
                "transactions are reconciled."
            )
            return Settlement("unknown", said, "unsure")
        if found is None:
            if unmarked:
                said = f"{PREFIX} no adjustment is in YNAB and nothing was reconciled: nothing changed."
                return Settlement("failed", said, "none")
            return judged(self.reversal(snapshot, op))
        record = logged.model_copy(
            update={"adjustment_id": found.id, "adjustment_digest": transaction_digest(found)}
        )
        amount = shown_amount(snapshot.settings.currency_format, found.amount, statement=True)
        if marked:
            said = (
                f"{PREFIX} the adjustment of {amount} (transaction {found.id}) and the reconciled marks of "
                f"{len(logged.reconciled_ids)} transaction(s) are in YNAB."
            )
            return Settlement("applied", said, "all", undo_data=record)
        if not unmarked:
            return judged(self.reversal(snapshot, op))
        not_deleted = await delete_adjustment(client, snapshot.plan_id, found.id)
        if not_deleted is not None:
            said = (
                f"{PREFIX} the adjustment of {amount} (transaction {found.id}) is in YNAB but nothing was "
                f"reconciled; {not_deleted.rstrip('.')}, so it is tried again."
            )
            return Settlement("pending", said, "part", undo_data=record, final=False)
        said = (
            f"{PREFIX} nothing was reconciled: the adjustment of {amount} had landed (transaction "
            f"{found.id}) and was deleted again, so the account is as before."
        )
        return Settlement("failed", said, "none", undo_data=record)


@write_tool(
    ReconcileAccount(), title="Reconcile an account", toolset="accounts", destructive=True, idempotent=False
)
def reconcile_account(
    account_id: Annotated[str, Field(description="The account (list_accounts), open.", max_length=100)],
    bank_balance: Annotated[
        AmountValue,
        Field(
            description='The balance the bank shows now, as the person read it, e.g. "1523.40" '
            "(a debt negative)."
        ),
    ],
    adjust: Annotated[
        bool,
        Field(
            description="Only when the person asked for it: enter an adjustment of the difference so the "
            "cleared balance equals the bank's, then reconcile."
        ),
    ] = False,
) -> Reconciling:
    """Reconcile an account with the balance the person's bank shows, after the person agreed.

    Ask the person for the bank's balance first. When YNAB's cleared balance differs, the answer
    is `difference_found` with an analysis and nothing is changed: explain the gap with the
    person (uncleared transactions the bank may have already, those whose amount equals the
    difference in explained_by, possible duplicates); fix what they agree to, then call again.
    Only if they want the rest entered as is, call with adjust: true. When the balances agree
    (or adjusting), the person is asked to confirm marking every cleared transaction
    reconciled (a question in their client, or a confirmation code to return only once they
    agreed). YNAB's "last reconciled" date does not move (the API cannot set it).
    undo_operation with the operation id returns them to cleared and deletes the adjustment.
    """
    return Reconciling(
        account_id=id_arg(account_id, what="account"),
        bank_balance=amount_arg(bank_balance, field="bank_balance"),
        adjust=adjust,
    )


def _analysis(snapshot: PlanSnapshot, found: Reconciliation) -> Analysis:
    return Analysis(
        bank_balance=money(snapshot, found.bank_balance),
        cleared_balance=money(snapshot, found.cleared_balance),
        working_balance=money(snapshot, found.working_balance),
        difference=money(snapshot, found.difference),
        to_reconcile_count=len(found.to_reconcile),
        uncleared_count=len(found.uncleared),
        uncleared=[_uncleared(snapshot, t) for t in found.uncleared[:UNCLEARED_SHOWN]],
        explained_by=list(found.explained_by),
        possible_duplicates=[list(pair) for pair in found.possible_duplicates],
    )


def _uncleared(snapshot: PlanSnapshot, transaction: Transaction) -> UnclearedTransaction:
    return UnclearedTransaction(
        transaction_id=transaction.id,
        date=transaction.date.isoformat(),
        payee=payee_shown(snapshot, transaction),
        amount=money(snapshot, transaction.amount),
    )


def _gap_message(snapshot: PlanSnapshot, found: Reconciliation) -> str:
    explained = f"; {len(found.explained_by)} uncleared transaction(s) equal it" if found.explained_by else ""
    gap = shown_amount(snapshot.settings.currency_format, found.difference)
    return (
        f"The bank's balance differs from the cleared balance by {gap}"
        f"{explained}. Nothing was changed: review the gap with the person and call again, with "
        "adjust: true only if they want an adjustment entered."
    )


def _adjustment_lost(
    snapshot: PlanSnapshot, body: dict[str, Any], logged: LoggedReconciliation
) -> WriteFailed:
    """No answer to the adjustment's POST: it may be in YNAB; nothing was marked (never sent)."""
    amount = shown_amount(snapshot.settings.currency_format, body["amount"], statement=True)
    message = (
        f"No answer came back to entering the adjustment of {amount}: it "
        f"may or may not be in YNAB (find_transactions on the account shows a '{body['payee_name']}' dated "
        f"{body['date']} if it is), nothing was marked reconciled, and nothing is sent again."
    )
    unmarked = logged.model_copy(update={"reconciled_ids": ()})
    return WriteFailed(message, outcome="unknown", undo_data=unmarked, names_operation=True)


async def _half_done_failure(
    client: YnabClient,
    snapshot: PlanSnapshot,
    difference: int,
    entered: dict[str, Any],
    logged: LoggedReconciliation,
    error: YnabError,
) -> WriteFailed:
    """The adjustment landed, the marking may have (no answer: say exactly that, settling reads it)
    or did not (refused): the adjustment is deleted again, or left pending for settling to delete."""
    count = len(logged.reconciled_ids) + 1
    amount = shown_amount(snapshot.settings.currency_format, difference, statement=True)
    if isinstance(error, UnknownOutcome):
        message = (
            f"The adjustment of {amount} is in YNAB (transaction {entered['id']}), but no answer came back "
            f"to marking the {count} transaction(s) reconciled: they may or may not be, and it is not sent "
            f"again. {CHECK}"
        )
        return WriteFailed(message, outcome="unknown", undo_data=logged, names_operation=True)
    refused = f"Marking the {count} transaction(s) reconciled failed, so none is: {error.message}"
    wait = set_back_wait(client, error)
    not_deleted = "YNAB asks to wait longer than a rollback may" if wait is None else None
    if wait is not None:
        await anyio.sleep(wait)
        not_deleted = await delete_adjustment(client, snapshot.plan_id, entered["id"])
    if not_deleted is None:
        message = (
            f"{refused} The adjustment of {amount} entered first (transaction {entered['id']}) was deleted "
            "again, so nothing changed; calling reconcile_account again starts over."
        )
        return WriteFailed(message, outcome="failed", undo_data=logged, names_operation=True)
    message = (
        f"{refused} The adjustment of {amount} entered first (transaction {entered['id']}) is still in YNAB "
        f"({not_deleted}); this service deletes it shortly (list_operations shows when)."
    )
    return WriteFailed(message, outcome="pending", undo_data=logged, names_operation=True)


async def delete_adjustment(client: YnabClient, plan_id: str, transaction_id: str) -> str | None:
    """Delete an adjustment whose marking did not land (a rollback: pacing never refuses it).
    None once deleted (or already gone), else why not."""
    try:
        with request_kind(RequestKind.ROLLBACK):
            await client.delete_transaction(plan_id, transaction_id, check_hint=CHECK)
    except UnknownOutcome:
        return "deleting it got no answer"
    except YnabError as failed:
        if failed.status == 404:
            return None
        return f"deleting it failed: {failed.message}"
    return None


async def _adjustment_in_ynab(
    client: YnabClient, snapshot: PlanSnapshot, op: Operation, logged: LoggedReconciliation
) -> Transaction | Literal["unsure"] | None:
    """The operation's adjustment as YNAB holds it now; None when it is not there; "unsure" when
    it changed since it was entered, or its id was never learnt and YNAB shows no single one."""
    if logged.adjustment_id is not None:
        state, _reason = adjustment_state(snapshot, logged.adjustment_id, logged.adjustment_digest)
        if state == "conflict":
            return "unsure"
        return snapshot.transactions.get(logged.adjustment_id) if state == "restore" else None
    knowledge = logged.knowledge_before
    if knowledge is None:
        return "unsure"
    delta = await client.get_plan(op.plan_id, knowledge)
    new_ids = {
        str(row.get("id"))
        for row in (delta.get("plan") or {}).get("transactions") or ()
        if row.get("account_id") == logged.account_id and row.get("memo") == ADJUSTMENT_MEMO
    }
    found = [snapshot.transactions[t] for t in sorted(new_ids) if t in snapshot.transactions]
    if len(found) > 1:
        return "unsure"
    return found[0] if found else None
