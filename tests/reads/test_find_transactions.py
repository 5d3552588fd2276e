"""find_transactions: the sandbox's transactions by window, amount, accounts, categories, payee."""

from __future__ import annotations

import unicodedata
from datetime import date, timedelta

import httpx2
import pytest
from django.conf import settings

from avenir_mcp.mcp_surface.plan_lookup import today
from avenir_mcp.sandbox.models import Category
from avenir_mcp.tools.logic.payees import normalise_payee
from avenir_mcp.values.text import safe_text
from tests.helpers.reads import call, every_page, milliunits
from tests.helpers.results import ok, refusal
from tests.helpers.sandbox_side import request_mark, requests_after, sandbox_get

pytestmark = pytest.mark.anyio


async def held(plan_id: str, since: date, until: date) -> list[dict]:
    """The sandbox's live transactions in the window, newest first (date, then id)."""
    answer = await sandbox_get(f"/plans/{plan_id}/transactions", since_date=since.isoformat())
    found = [t for t in answer["transactions"] if not t["deleted"] and date.fromisoformat(t["date"]) <= until]
    found.sort(key=lambda t: t["id"])
    found.sort(key=lambda t: t["date"], reverse=True)
    return found


def window(days: int = 120) -> dict:
    return {"since_date": (today() - timedelta(days=days)).isoformat(), "until_date": today().isoformat()}


async def search(plan_id: str, **arguments) -> list[dict]:
    found, _pages = await every_page(
        "find_transactions", "transactions", plan_id=plan_id, limit=200, **arguments
    )
    return found


async def test_a_window_lists_the_sandboxs_transactions_newest_first_with_their_fields(demo_plan):
    expected = await held(demo_plan.id, today() - timedelta(days=120), today())

    found = await search(demo_plan.id, **window())

    assert [t["transaction_id"] for t in found] == [t["id"] for t in expected]
    for entry, transaction in zip(found, expected, strict=True):
        split = bool(transaction["subtransactions"])
        assert entry["date"] == transaction["date"]
        assert milliunits(entry["amount"]) == transaction["amount"]
        assert entry["account"] == transaction["account_name"]
        assert entry["payee"] == safe_text(transaction["payee_name"] or "")
        assert entry["split"] is split
        assert entry["category"] == (
            None
            if split or transaction["category_name"] in (None, "Uncategorized")
            else transaction["category_name"]
        )
        assert (entry["cleared"], entry["approved"]) == (transaction["cleared"], transaction["approved"])
        assert entry["flag"] == (transaction["flag_color"] or None)


async def test_an_amount_matches_exactly_with_its_sign_given_as_text_or_number(demo_plan):
    expected = await held(demo_plan.id, today() - timedelta(days=120), today())
    outflow = next(t for t in expected if t["amount"] < 0 and t["amount"] % 1000)
    as_text = f"-{abs(outflow['amount']) // 1000}.{abs(outflow['amount']) % 1000:03d}"

    by_text = await search(demo_plan.id, amount=as_text, **window())
    by_number = await search(demo_plan.id, amount=float(as_text), **window())
    opposite = await search(demo_plan.id, amount=as_text[1:], **window())

    same_amount = [t["id"] for t in expected if t["amount"] == outflow["amount"]]
    assert [t["transaction_id"] for t in by_text] == same_amount
    assert by_number == by_text
    assert outflow["id"] not in {t["transaction_id"] for t in opposite}


async def test_payee_text_ignores_card_numbers_and_dates(demo_plan):
    expected = await held(demo_plan.id, today() - timedelta(days=180), today())
    carte = next(t for t in expected if (t["payee_name"] or "").startswith("CARTE "))
    merchant = normalise_payee(carte["payee_name"])

    found = await search(demo_plan.id, payee=f"CB {merchant.lower()} 01/01", **window(180))

    matching = [
        t["id"]
        for t in expected
        if merchant in normalise_payee(t["payee_name"])
        or any(merchant in normalise_payee(line["payee_name"]) for line in t["subtransactions"])
    ]
    assert carte["id"] in matching
    assert [t["transaction_id"] for t in found] == matching


async def test_a_split_matches_the_category_of_one_of_its_lines(demo_plan):
    expected = await held(demo_plan.id, today() - timedelta(days=180), today())
    split = next(t for t in expected if t["subtransactions"])
    category_id = split["subtransactions"][-1]["category_id"]

    found = await search(demo_plan.id, category_ids=[category_id, category_id], **window(180))

    entry = next(t for t in found if t["transaction_id"] == split["id"])
    assert entry["split"] is True
    assert entry["category"] is None
    with_category = [
        t["id"]
        for t in expected
        if t["category_id"] == category_id
        or any(line["category_id"] == category_id for line in t["subtransactions"])
    ]
    assert [t["transaction_id"] for t in found] == with_category


async def test_accounts_and_other_filters_combine(demo_plan):
    expected = await held(demo_plan.id, today() - timedelta(days=120), today())
    account_id = expected[0]["account_id"]

    found = await search(demo_plan.id, account_ids=[account_id], **window())

    assert [t["transaction_id"] for t in found] == [
        t["id"] for t in expected if t["account_id"] == account_id
    ]


async def test_memos_written_to_instruct_the_agent_are_shown_as_one_line_of_data(demo_plan):
    found = await search(demo_plan.id, **window(40))

    memos = [t["memo"] for t in found if t["memo"]]
    rtl = next(m for m in memos if m.startswith("Order 402-7731"))
    imitation = next(m for m in memos if m.startswith("Recategorise 1 transaction(s)?"))
    for memo in (rtl, imitation):
        assert len(memo) <= 80
        assert not any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in memo)
    assert "\u202e" not in rtl
    assert imitation.endswith("…")


async def test_a_transaction_in_ynabs_uncategorized_category_shows_no_category(own_demo_plan):
    uncategorized = await Category.objects.aget(plan=own_demo_plan, role=Category.ROLE_UNCATEGORIZED)
    expected = await held(own_demo_plan.id, today() - timedelta(days=40), today())
    chosen = next(
        t for t in expected if t["category_id"] and not t["subtransactions"] and not t["transfer_account_id"]
    )
    body = {"transactions": [{"id": chosen["id"], "category_id": uncategorized.id}]}
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.patch(
            f"{settings.AVENIR_MCP_YNAB_URL}/plans/{own_demo_plan.id}/transactions",
            json=body,
            headers={"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"},
        )
    response.raise_for_status()

    found = {t["transaction_id"]: t for t in await search(own_demo_plan.id, **window(40))}

    now = await sandbox_get(f"/plans/{own_demo_plan.id}/transactions/{chosen['id']}")
    assert now["transaction"]["category_name"] == "Uncategorized"  # YNAB names it; to the person it is none
    assert found[chosen["id"]]["category"] is None


async def test_pages_are_bound_to_their_filters(demo_plan):
    first = ok(await call("find_transactions", plan_id=demo_plan.id, limit=5, **window()))

    following = await call(
        "find_transactions", plan_id=demo_plan.id, limit=5, cursor=first["next_cursor"], **window()
    )
    other = await call(
        "find_transactions",
        plan_id=demo_plan.id,
        limit=5,
        cursor=first["next_cursor"],
        amount="-1.00",
        **window(),
    )

    assert len(first["transactions"]) == 5
    assert ok(following)["transactions"][0]["date"] <= first["transactions"][-1]["date"]
    assert refusal(other).endswith("This cursor belongs to another query; call again without cursor.")


async def test_unknown_accounts_and_categories_are_refused_naming_where_ids_come_from(demo_plan):
    account = await call("find_transactions", plan_id=demo_plan.id, account_ids=["a1x"], **window())
    category = await call("find_transactions", plan_id=demo_plan.id, category_ids=["c1x"], **window())

    assert refusal(account).endswith("No account 'a1x' in this plan; list_accounts gives the valid ids.")
    assert refusal(category).endswith(
        "No category 'c1x' in this plan; get_category_balances gives the valid ids."
    )


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"since_date": "2026-09-10", "until_date": "2026-09-01"}, "is after until_date"),
        ({"since_date": "2025-01-01", "until_date": "2026-06-01"}, "give at most 366"),
        ({"since_date": "2026-9-1"}, "is not a date"),
        ({"since_date": "2026-09-01", "amount": "12,50"}, "decimal comma"),
        ({"since_date": "2026-09-01", "amount": "1.2345"}, "give at most 3"),
        ({"since_date": "2026-09-01", "amount": 1e21}, "not a plain decimal"),
        ({"since_date": "2026-09-01", "category_ids": ["c/1"]}, "is not a valid category id"),
        ({"since_date": "2026-09-01", "payee": "a\nb"}, "control or invisible character"),
    ],
)
async def test_bad_arguments_are_refused_in_one_line_before_any_ynab_request(live_service, arguments, reason):
    mark = await request_mark()

    result = await call("find_transactions", **{"until_date": "2026-09-30", **arguments})

    assert reason in refusal(result)
    assert await requests_after(mark) == []


async def test_since_date_is_required(live_service):
    result = await call("find_transactions")

    assert result.is_error


async def test_a_warm_search_costs_one_ynab_request(demo_plan):
    await call("find_transactions", plan_id=demo_plan.id, **window())
    mark = await request_mark()

    ok(await call("find_transactions", plan_id=demo_plan.id, payee="netflix", **window()))

    assert len(await requests_after(mark)) == 1
