"""Settling a `create_transactions` whose answer was lost
(docs/undo.md#create_transactions-whose-answer-was-lost).

The ids of the new transactions come only with YNAB's answer, so the lines are found by their
content (`tools.logic.landed_creations.find_landed`) on the fresh snapshot settling reads,
leaving out the same-content transactions that existed before the write and those another
create_transactions row of the plan claims (the agent entering them again after the lost
answer). Then:

- every line found → `applied`, the ids found (with their digests) in the undo data, so
  undo_operation deletes exactly those;
- some found → `applied` for those, and the log names the lines not found by number and date
  (or matched by more transactions than asked, with their ids);
- none found → one more request, the plan's delta since the `knowledge` the write was sent on:
  no transaction of the account entered, changed or deleted since (and none deleted anywhere,
  whose account a delta does not show) proves the write entered nothing → `failed`; otherwise
  `unknown` (one of those may be a line, changed since), saying so and what to check;
- a row logged before the log kept its lines' content (no `asked`): `unknown`, with what to check.

The log's words name lines by number and date, and transactions by id: never their payee,
memo or amount.
"""

from __future__ import annotations

from mcp_surface.presenting import account_name
from oplog.models import Operation
from oplog.settling.judge import PREFIX, Settlement, settler
from tools.logic.landed_creations import Landing, find_landed
from tools.logic.new_transactions import CreationUndo, LoggedCreation, transaction_digest
from ynab_client import PlanSnapshot, YnabClient
from ynab_client.snapshot import parse_plan_delta

TOOL = "create_transactions"
HOW = "by their date, amount, payee and memo"


@settler(TOOL)
class LostCreationSettler:
    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        logged = CreationUndo.from_json(op.undo_data)
        account = account_name(snapshot, logged.account_id)
        if not logged.asked or logged.knowledge is None:
            return _cannot_look(op, account)
        landing = find_landed(snapshot, logged.account_id, logged.asked, await _taken_elsewhere(op))
        if landing.found:
            return _found(logged, landing, account)
        if landing.ambiguous:
            said = (
                f"{PREFIX} {_ambiguous(landing)}. Check them with find_transactions; undo_operation "
                "deletes none."
            )
            return Settlement("unknown", said, "unsure")
        return await _none_found(client, snapshot.plan_id, logged, account)


async def _taken_elsewhere(op: Operation) -> set[str]:
    """The transaction ids the plan's other create_transactions rows hold as theirs."""
    others = Operation.objects.filter(plan_id=op.plan_id, tool=TOOL).exclude(pk=op.pk)
    stored = [data async for data in others.values_list("undo_data", flat=True) if data]
    return {item.transaction_id for data in stored for item in CreationUndo.from_json(data).transactions}


def _found(logged: CreationUndo, landing: Landing, account: str) -> Settlement:
    created = tuple(LoggedCreation(t.id, transaction_digest(t)) for _number, t in landing.found)
    undo_data = CreationUndo(logged.account_id, created, found_by_content=True)
    named = ", ".join(f"transaction {number} ({t.id})" for number, t in landing.found)
    total = len(logged.asked)
    if len(landing.found) == total:
        said = (
            f"{PREFIX} all {total} transaction(s) were found on {account} {HOW}, entered by this write: "
            f"{named}. undo_operation deletes exactly these."
        )
        return Settlement("applied", said, "all", undo_data)
    left = [f"not found: {_lines(logged, landing.missing)}"] if landing.missing else []
    left += [_ambiguous(landing)] if landing.ambiguous else []
    said = (
        f"{PREFIX} {len(landing.found)} of {total} transaction(s) were found on {account} {HOW}: {named}; "
        f"{'; '.join(left)}. undo_operation deletes only those found; check find_transactions for the "
        "others before entering them again."
    )
    return Settlement("applied", said, "part", undo_data)


async def _none_found(client: YnabClient, plan_id: str, logged: CreationUndo, account: str) -> Settlement:
    total = len(logged.asked)
    delta = parse_plan_delta(await client.get_plan(plan_id, logged.knowledge)).transactions
    touched = [t.id for t in delta.upserts if t.account_id == logged.account_id]
    looked = f"none of the {total} transaction(s) is on {account} {HOW}"
    if not touched and not delta.deleted_ids:
        said = (
            f"{PREFIX} {looked}, and no transaction was entered, changed or deleted there since the "
            "write: nothing was entered."
        )
        return Settlement("failed", said, "none")
    changed = len(touched) + len(delta.deleted_ids)
    said = (
        f"{PREFIX} {looked}, but {changed} transaction(s) were entered, changed or deleted in the plan "
        f"since the write, so one may be a line changed since. Check find_transactions on {account} for "
        f"{_lines(logged, range(1, total + 1))} before entering them again; undo_operation deletes none."
    )
    return Settlement("unknown", said, "unsure")


def _cannot_look(op: Operation, account: str) -> Settlement:
    dates = sorted({line["date"] for line in op.subject["transactions"]})
    said = (
        f"{PREFIX} no answer came back and this row does not keep what its lines were, so YNAB's state "
        f"cannot show whether they were entered. Check find_transactions on {account} for "
        f"{len(op.subject['transactions'])} transaction(s) dated {', '.join(dates)} before entering them "
        "again; undo_operation cannot delete them."
    )
    return Settlement("unknown", said, "unsure")


def _lines(logged: CreationUndo, numbers: range | tuple[int, ...]) -> str:
    """`transaction 2 (dated 2026-09-14), transaction 3 (dated ...)`."""
    return ", ".join(f"transaction {n} (dated {logged.asked[n - 1].date})" for n in numbers)


def _ambiguous(landing: Landing) -> str:
    parts = [
        f"{', '.join(f'transaction {n}' for n in group.lines)} matched by {len(group.ids)} transactions "
        f"entered since ({', '.join(group.ids)}), more than asked, so YNAB cannot tell which"
        for group in landing.ambiguous
    ]
    return "; ".join(parts)
