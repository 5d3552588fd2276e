"""`manage.py seed_heavy --transactions N`: a generated plan of any size, for benchmarks."""

from __future__ import annotations

import time
import uuid

from django.core.management.base import BaseCommand, CommandError, CommandParser

from avenir_mcp.sandbox.models import Plan
from avenir_mcp.sandbox.seeding import seed_heavy_plan


class Command(BaseCommand):
    help = (
        "Create a generated plan with exactly N transactions (starting balances and both legs of "
        "transfers included): up to three years of a busy household, the same content for the same "
        "--seed. Prints the new plan's id."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--transactions", type=int, required=True, help="How many transactions (N).")
        parser.add_argument("--plan-id", default=None, help="Plan id (a UUID); default a new one.")
        parser.add_argument("--seed", type=int, default=0, help="Random seed (default 0).")

    def handle(self, *args, transactions: int, plan_id: str | None, seed: int, **options) -> None:
        if plan_id is not None:
            plan_id = _checked_uuid(plan_id)
            if Plan.objects.filter(pk=plan_id).exists():
                raise CommandError(f"A plan with id {plan_id} already exists.")
        started = time.perf_counter()
        try:
            plan = seed_heavy_plan(transactions, plan_id=plan_id, seed=seed)
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.stderr.write(f"Seeded '{plan.name}' in {time.perf_counter() - started:.1f} s.")
        self.stdout.write(plan.id)


def _checked_uuid(value: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise CommandError(f"--plan-id must be a UUID, not {value!r}.") from None
