"""The settler of a tool whose undo handler cannot judge a lost answer (`oplog.settling.judge`).

- `split_transaction` has no undo handler (YNAB's API cannot edit a split). The log keeps the
  transaction, its category before and the lines' categories (never their amounts or memos):
  split into lines of those categories → `applied`; still unsplit in its category before →
  `failed`; anything else (deleted, split otherwise, recategorised) → `unknown`.
(`create_transactions` has its own: `oplog.settling.lost_creations`.)

It reads the rows as split_transaction writes them (`split_transaction.build_change`: the stored
subject and undo data always hold these keys).
"""

from __future__ import annotations

from collections import Counter

from oplog.models import Operation
from oplog.settling.judge import PREFIX, Settlement, settler
from tools.writes.split_transaction import SplitRecord
from ynab_client import PlanSnapshot, YnabClient


@settler("split_transaction")
class SplitSettler:
    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        logged = SplitRecord.from_json(op.undo_data)
        transaction_id, wanted = logged.transaction_id, op.subject["line_category_ids"]
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
