"""Creating (one or many), updating (one, or many by id or import_id) and deleting transactions,
and importing what linked banks hold (201 with the new ids, 200 when there is nothing new).

Each request is checked whole before anything is written, then written in one database
transaction (a `plan_write` session: one knowledge bump, figures kept right).
"""

from __future__ import annotations

from typing import Any

from avenir_mcp.sandbox.api.fields import Body
from avenir_mcp.sandbox.api.http import Answer, SandboxRequest, bad_request, conflict, not_found
from avenir_mcp.sandbox.api.transaction_input import PlanReferences, TransactionReader
from avenir_mcp.sandbox.api.transaction_reads import details_of, transaction_answer
from avenir_mcp.sandbox.ledger import PlanWrite, plan_write
from avenir_mcp.sandbox.ledger.imports import import_waiting, waiting_lines
from avenir_mcp.sandbox.ledger.transactions import (
    TransactionSpec,
    create_transaction,
    delete_transaction,
    is_leg_of_split_line,
    update_transaction,
)
from avenir_mcp.sandbox.models import Plan, Transaction

DUPLICATE = "A transaction on the same account with the same import_id already exists."


def create(call: SandboxRequest, plan: Plan) -> Answer:
    body = call.body()
    single, many = body.get("transaction"), body.get("transactions")
    if (single is None) == (many is None):
        raise bad_request("provide either transaction (one) or transactions (many), not both or neither")
    if many is not None and not isinstance(many, list):
        raise bad_request("transactions must be an array")
    with plan_write(plan.id) as write:
        reader = TransactionReader(PlanReferences(plan), write.today)
        if single is not None:
            spec = reader.new(single, None)
            if _taken_import_ids([spec]):
                raise conflict(DUPLICATE)
            created = create_transaction(write, spec)
            data = {"transaction_ids": [created.id], "transaction": transaction_answer(plan, created.id)}
        else:
            data = _create_many(write, reader, many, plan)
    return Answer({**data, "server_knowledge": write.knowledge}, status=201)


def _create_many(write: PlanWrite, reader: TransactionReader, items: list, plan: Plan) -> dict[str, Any]:
    specs = [reader.new(item, index) for index, item in enumerate(items)]
    taken = _taken_import_ids(specs)
    ids, duplicates = [], []
    for spec in specs:
        key = (spec.values["account_id"], spec.values.get("import_id"))
        if key[1] is not None and key in taken:
            duplicates.append(key[1])
            continue
        taken.add(key)
        ids.append(create_transaction(write, spec).id)
    transactions = details_of(plan, Transaction.objects.filter(pk__in=ids))
    return {"transaction_ids": ids, "transactions": transactions, "duplicate_import_ids": duplicates}


def _taken_import_ids(specs: list[TransactionSpec]) -> set[tuple[str, str]]:
    """(account, import_id) pairs of these specs that already exist (deleted ones included)."""
    wanted = {(s.values["account_id"], s.values["import_id"]) for s in specs if s.values.get("import_id")}
    if not wanted:
        return set()
    rows = Transaction.objects.filter(
        account_id__in={a for a, _ in wanted}, import_id__in={i for _, i in wanted}
    ).values_list("account_id", "import_id")
    return set(rows) & wanted


def update_many(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    items = call.body().get("transactions")
    if not isinstance(items, list):
        raise bad_request("transactions is required and must be an array")
    with plan_write(plan.id) as write:
        reader = TransactionReader(PlanReferences(plan), write.today)
        targets = [_target(plan, item, index) for index, item in enumerate(items)]
        specs = [
            reader.existing(item, index, txn)
            for index, (item, txn) in enumerate(zip(items, targets, strict=True))
        ]
        for txn, spec in zip(targets, specs, strict=True):
            update_transaction(write, txn, spec)
        ids = [txn.id for txn in targets]
    transactions = details_of(plan, Transaction.objects.filter(pk__in=ids))
    return {"transaction_ids": ids, "transactions": transactions, "server_knowledge": write.knowledge}


def _target(plan: Plan, item: Any, index: int) -> Transaction:
    body = Body(item, index, "transaction")
    txn_id, import_id = body.text("id"), body.text("import_id", max_length=36)
    if txn_id and import_id:
        raise body.fail("provide id or import_id, not both")
    live = Transaction.objects.filter(plan=plan, deleted=False)
    if txn_id:
        found = live.filter(pk=txn_id).first()
    elif import_id:
        found = live.filter(import_id=import_id).order_by("date").first()
    else:
        raise body.fail("id or import_id is required")
    if found is None:
        raise body.fail("transaction does not exist in this plan")
    return found


def update_one(call: SandboxRequest, plan: Plan, transaction_id: str) -> dict[str, Any]:
    data = Body.wrapped(call.body(), "transaction").data
    with plan_write(plan.id) as write:
        txn = Transaction.objects.filter(plan=plan, pk=transaction_id, deleted=False).first()
        if txn is None:
            raise not_found()
        spec = TransactionReader(PlanReferences(plan), write.today).existing(data, None, txn)
        update_transaction(write, txn, spec)
    return {"transaction": transaction_answer(plan, transaction_id), "server_knowledge": write.knowledge}


def delete(call: SandboxRequest, plan: Plan, transaction_id: str) -> dict[str, Any]:
    with plan_write(plan.id) as write:
        txn = Transaction.objects.filter(plan=plan, pk=transaction_id, deleted=False).first()
        if txn is None:
            raise not_found()
        if is_leg_of_split_line(txn):
            raise bad_request("this transfer was made by a split line: delete the split transaction instead")
        delete_transaction(write, txn)
    answer = transaction_answer(plan, transaction_id, deleted=True)
    return {"transaction": answer, "server_knowledge": write.knowledge}


def import_transactions(call: SandboxRequest, plan: Plan) -> Answer:
    if not waiting_lines(plan):
        return Answer({"transaction_ids": []}, status=200)
    with plan_write(plan.id) as write:
        created = import_waiting(write, waiting_lines(plan))
    return Answer({"transaction_ids": created}, status=201 if created else 200)
