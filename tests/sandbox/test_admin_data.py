"""The sandbox's data in the admin: visible to staff, never editable there (it would bypass
the ledger), and a plan's figures can be recomputed from its transactions."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth.models import User
from django.test import Client

from avenir_mcp.sandbox.models import Account, Transaction
from tests.sandbox.plans import small_plan

PAGES = [
    "plan",
    "account",
    "categorygroup",
    "category",
    "monthcategory",
    "payee",
    "transaction",
    "scheduledtransaction",
    "moneymovement",
    "banktransaction",
]


@pytest.fixture
def staff() -> Client:
    user = User.objects.create_superuser(f"admin-{uuid.uuid4().hex[:8]}", password=uuid.uuid4().hex)
    client = Client()
    client.force_login(user)
    return client


def test_staff_see_every_kind_of_sandbox_data(staff):
    small_plan("Admin household")

    pages = {name: staff.get(f"/admin/sandbox/{name}/") for name in PAGES}

    assert {name: page.status_code for name, page in pages.items()} == dict.fromkeys(PAGES, 200)
    assert "$1,000.00" in pages["account"].content.decode()


def test_the_data_cannot_be_edited_in_the_admin(staff):
    home = small_plan("Admin household")

    add = staff.get("/admin/sandbox/transaction/add/")
    change = staff.post(f"/admin/sandbox/account/{home.checking}/change/", {"name": "Renamed"})

    assert add.status_code == 403
    assert change.status_code == 403
    assert Account.objects.get(pk=home.checking).name == "Checking"


def test_recomputing_a_plan_restores_its_figures(staff):
    home = small_plan("Admin household")
    Account.objects.filter(pk=home.checking).update(cleared_balance=0)

    staff.post("/admin/sandbox/plan/", {"action": "recompute_figures", "_selected_action": [home.id]})

    assert Account.objects.get(pk=home.checking).cleared_balance == 1_000_000
    assert Transaction.objects.filter(plan=home.plan).count() == 3


def test_every_kind_is_named_in_real_english_plurals(staff):
    index = staff.get("/admin/").content.decode()

    assert "Month categories" in index
    assert "categorys" not in index.lower()
