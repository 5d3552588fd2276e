"""list_payees: usage counts and last use as the sandbox's transactions show them, search, paging."""

from __future__ import annotations

from collections import Counter

import pytest

from avenir_mcp.values.text import safe_text
from tests.helpers.reads import call, every_page
from tests.helpers.results import ok, refusal
from tests.helpers.sandbox_side import request_mark, requests_after, sandbox_get
from tests.mcp.answers import summary

pytestmark = pytest.mark.anyio


async def held_usage(plan_id: str) -> tuple[dict, Counter, dict]:
    """The sandbox's payees, and per payee id how many transactions use it and the newest date."""
    payees = {p["id"]: p for p in (await sandbox_get(f"/plans/{plan_id}/payees"))["payees"]}
    counts, newest = Counter(), {}
    for transaction in (await sandbox_get(f"/plans/{plan_id}/transactions"))["transactions"]:
        used = {transaction["payee_id"]} | {line["payee_id"] for line in transaction["subtransactions"]}
        for payee_id in used - {None}:
            counts[payee_id] += 1
            newest[payee_id] = max(newest.get(payee_id, ""), transaction["date"])
    return payees, counts, newest


async def test_every_payee_comes_with_its_count_and_last_use_most_used_first(demo_plan):
    payees, counts, newest = await held_usage(demo_plan.id)

    listed, pages = await every_page("list_payees", "payees", plan_id=demo_plan.id, limit=200)

    expected = {pid for pid, p in payees.items() if not p["deleted"] and p["transfer_account_id"] is None}
    assert {entry["payee_id"] for entry in listed} == expected
    assert pages[0]["total"] == len(expected)
    for entry in listed:
        assert entry["name"] == safe_text(payees[entry["payee_id"]]["name"])
        assert entry["transactions"] == counts[entry["payee_id"]]
        assert entry["last_date"] == newest.get(entry["payee_id"])
    order = [(-entry["transactions"], entry["name"].casefold()) for entry in listed]
    assert order == sorted(order)


async def test_search_matches_name_or_merchant_case_insensitively(demo_plan):
    payees, _counts, _newest = await held_usage(demo_plan.id)

    result = await call("list_payees", plan_id=demo_plan.id, search="netflix")
    found = ok(result)

    expected = {
        pid
        for pid, payee in payees.items()
        if "netflix" in payee["name"].casefold() and payee["transfer_account_id"] is None
    }
    assert expected  # the demo pays Netflix by card and by schedule
    assert {entry["payee_id"] for entry in found["payees"]} == expected
    assert found["total"] == len(expected)
    assert all("NETFLIX" in entry["merchant"] for entry in found["payees"])
    top = found["payees"][0]
    expected_line = (
        f"{len(expected)} payees matching the search; most used: {top['name']} ({top['transactions']})."
    )
    assert summary(result) == expected_line


async def test_a_merchant_search_finds_bank_labels_however_they_are_written(demo_plan):
    found = ok(await call("list_payees", plan_id=demo_plan.id, search="totalenergies", limit=200))

    names = [entry["name"] for entry in found["payees"]]
    assert names
    assert all(entry["merchant"] == "TOTALENERGIES" for entry in found["payees"])


async def test_pages_cover_the_matches_once(demo_plan):
    whole = ok(await call("list_payees", plan_id=demo_plan.id, limit=200))

    paged, pages = await every_page("list_payees", "payees", plan_id=demo_plan.id, limit=30)

    assert paged == whole["payees"]
    assert all(page["total"] == whole["total"] for page in pages)


async def test_a_cursor_is_bound_to_its_search(demo_plan):
    cursor = ok(await call("list_payees", plan_id=demo_plan.id, limit=2))["next_cursor"]

    result = await call("list_payees", plan_id=demo_plan.id, limit=2, search="carte", cursor=cursor)

    assert refusal(result).endswith("This cursor belongs to another query; call again without cursor.")


@pytest.mark.parametrize(
    ("search", "reason"), [("   ", "search is empty"), ("net\u202eflix", "U+202E (RIGHT-TO-LEFT OVERRIDE)")]
)
async def test_a_search_that_is_empty_or_hides_characters_is_refused_before_any_request(
    live_service, search, reason
):
    mark = await request_mark()

    result = await call("list_payees", search=search)

    assert reason in refusal(result)
    assert await requests_after(mark) == []


async def test_a_search_that_matches_no_payee_says_so(demo_plan):
    result = await call("list_payees", plan_id=demo_plan.id, search="no such merchant anywhere")

    assert ok(result)["payees"] == []
    assert summary(result) == "0 payees matching the search."
