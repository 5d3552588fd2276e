"""`manage.py seed_demo`: the sandbox's demo plan, an invented household."""

from __future__ import annotations

import uuid

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from avenir_mcp.sandbox.models import Account, Plan, Transaction
from avenir_mcp.sandbox.seeding import DEMO_PLAN_ID, DEMO_PLAN_NAME, seed_demo_plan


class Command(BaseCommand):
    help = (
        f"Create the demo plan '{DEMO_PLAN_NAME}' in the sandbox, under the id {DEMO_PLAN_ID} unless "
        "--plan-id is given: six months of an invented household's accounts, budget and noisy bank "
        "history up to today, with pending imports to review. Refuses if that plan exists, unless "
        "--replace (which deletes it and seeds it again)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--plan-id", default=DEMO_PLAN_ID, help=f"Plan id (a UUID); default {DEMO_PLAN_ID}."
        )
        parser.add_argument(
            "--replace", action="store_true", help="Delete the plan with that id first, if there is one."
        )

    def handle(self, *args, plan_id: str, replace: bool, **options) -> None:
        plan_id = _checked_uuid(plan_id)
        with transaction.atomic():
            existing = Plan.objects.filter(pk=plan_id)
            if existing.exists() and not replace:
                raise CommandError(
                    f"A plan with id {plan_id} already exists; "
                    "pass --replace to delete it and seed the demo again."
                )
            existing.delete()
            plan = seed_demo_plan(plan_id)
        transactions = Transaction.objects.filter(plan=plan, deleted=False).count()
        accounts = Account.objects.filter(plan=plan, deleted=False).count()
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo plan '{plan.name}' seeded: id {plan.id}, {accounts} accounts, "
                f"{transactions} transactions from {plan.first_month:%Y-%m} to today."
            )
        )


def _checked_uuid(value: str) -> str:
    """The plan id in YNAB's form (a lower-case UUID), or a clear refusal."""
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise CommandError(f"--plan-id must be a UUID like {DEMO_PLAN_ID}, not {value!r}.") from None
