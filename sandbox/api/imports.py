"""POST /transactions/import: bring in what linked banks hold (201 with ids, 200 when nothing)."""

from __future__ import annotations

from sandbox.api.http import Answer, Call
from sandbox.ledger import plan_write
from sandbox.ledger.imports import import_waiting, waiting_lines
from sandbox.models import Plan


def import_transactions(call: Call, plan: Plan) -> Answer:
    if not waiting_lines(plan):
        return Answer({"transaction_ids": []}, status=200)
    with plan_write(plan.id) as write:
        created = import_waiting(write, waiting_lines(plan))
    return Answer({"transaction_ids": created}, status=201 if created else 200)
