"""The seeding commands: seed_demo (documented id, refuses to overwrite unless --replace)
and seed_heavy (prints the new plan's id)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction

from avenir_mcp.sandbox.models import Plan, Transaction, new_id
from avenir_mcp.sandbox.seeding import DEMO_PLAN_ID


def _seed_demo(*args: str) -> str:
    out = io.StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_seed_demo_creates_the_demo_under_the_given_id_and_says_so():
    plan_id = new_id()

    printed = _seed_demo("--plan-id", plan_id)

    assert Plan.objects.get(pk=plan_id).name == "Demo household"
    assert plan_id in printed
    assert "transactions" in printed


def test_seed_demo_uses_the_documented_id_by_default():
    with transaction.atomic():
        printed = _seed_demo("--replace")
        seeded = Plan.objects.filter(pk=DEMO_PLAN_ID).exists()
        transaction.set_rollback(True)

    assert seeded
    assert DEMO_PLAN_ID in printed


def test_seed_demo_refuses_to_overwrite_a_plan_without_replace():
    plan_id = new_id()
    _seed_demo("--plan-id", plan_id)
    Transaction.objects.filter(plan_id=plan_id).update(memo="edited by the person")

    with pytest.raises(CommandError, match="--replace"):
        _seed_demo("--plan-id", plan_id)
    assert set(Transaction.objects.filter(plan_id=plan_id).values_list("memo", flat=True)) == {
        "edited by the person"
    }


def test_seed_demo_with_replace_seeds_the_plan_again():
    plan_id = new_id()
    _seed_demo("--plan-id", plan_id)
    count = Transaction.objects.filter(plan_id=plan_id).count()
    Transaction.objects.filter(plan_id=plan_id).update(memo="edited by the person")

    _seed_demo("--plan-id", plan_id, "--replace")

    assert Transaction.objects.filter(plan_id=plan_id).count() == count
    assert not Transaction.objects.filter(plan_id=plan_id, memo="edited by the person").exists()


def test_seed_demo_refuses_an_id_that_is_not_a_uuid():
    with pytest.raises(CommandError, match="must be a UUID"):
        _seed_demo("--plan-id", "../other")


def test_seed_heavy_prints_the_id_of_a_plan_with_that_many_transactions():
    out = io.StringIO()

    call_command("seed_heavy", "--transactions", "700", "--seed", "4", stdout=out, stderr=io.StringIO())

    plan_id = out.getvalue().strip()
    assert Transaction.objects.filter(plan_id=plan_id).count() == 700


def test_seed_heavy_refuses_fewer_transactions_than_its_accounts_need():
    with pytest.raises(CommandError, match="at least"):
        call_command("seed_heavy", "--transactions", "3", stdout=io.StringIO(), stderr=io.StringIO())
