"""Settlers for two tools whose undo handler cannot judge a lost answer (`tools.settling.judge`).

- `split_transaction` has no undo handler (YNAB's API cannot edit a split). The log keeps the
  transaction, its category before and the lines' categories (never their amounts or memos):
  split into lines of those categories → `applied`; still unsplit in its category before →
  `failed`; anything else (deleted, split otherwise, recategorised) → `unknown`.
- `create_transactions`: the created ids and their digests come only with YNAB's answer, so
  with the answer lost the log holds nothing to look for (new payees get their ids from YNAB,
  so a digest cannot be worked out beforehand). It settles `unknown` saying exactly what to
  check; a row that did learn its ids is judged by its undo handler as any other.
"""

from __future__ import annotations

from collections import Counter

from tools.models import Operation
from tools.presenting import account_name
from tools.settling.judge import PREFIX, ItemsSettler, Settlement, cannot_tell, settler
from tools.ynab import PlanSnapshot, YnabClient


@settler("split_transaction")
class SplitSettler:
    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        subject = op.subject if isinstance(op.subject, dict) else {}
        before = op.undo_data if isinstance(op.undo_data, dict) else {}
        transaction_id, wanted = subject.get("transaction_id"), subject.get("line_category_ids")
        if not (isinstance(transaction_id, str) and isinstance(wanted, list) and "category_before" in before):
            return cannot_tell(op)
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
        if not lines and transaction.category_id == before["category_before"]:
            said = f"{PREFIX} transaction {transaction_id} is not split, as before: nothing was changed."
            return Settlement("failed", said, "none")
        said = (
            f"{PREFIX} transaction {transaction_id} changed since (split otherwise or recategorised), so "
            "YNAB cannot tell whether this split landed. Check it with find_transactions."
        )
        return Settlement("unknown", said, "unsure")


@settler("create_transactions")
class CreateTransactionsSettler:
    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        logged = op.undo_data.get("transactions") if isinstance(op.undo_data, dict) else None
        if logged:
            return await ItemsSettler().settle(client, snapshot, op)
        subject = op.subject if isinstance(op.subject, dict) else {}
        lines = subject.get("transactions") if isinstance(subject.get("transactions"), list) else []
        if not lines:
            return cannot_tell(op)
        dates = sorted({str(line.get("date")) for line in lines if isinstance(line, dict)})
        said = (
            f"{PREFIX} no answer came back, so the {len(lines)} transaction(s)' ids were never learnt "
            "and YNAB's state cannot show whether they were entered. Check find_transactions on "
            f"{account_name(snapshot, subject.get('account_id'))} for {len(lines)} transaction(s) dated "
            f"{', '.join(dates)} before entering them again; undo_operation cannot delete them."
        )
        return Settlement("unknown", said, "unsure")
