"""Finding transactions: every criterion, newest first, splits by their lines, from the indexes."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from avenir_mcp.tools.logic.payees import normalise_payee
from avenir_mcp.tools.logic.search import Criteria, matching
from tests.logic.plan_rows import account, category, group, line, payee, snapshot, transaction

D = date.fromisoformat


def plan():
    return snapshot(
        accounts=[account("chk"), account("visa", "Visa")],
        category_groups=[group("g", "Everyday")],
        categories=[category("food", "g", "Groceries"), category("fun", "g", "Outings")],
        payees=[
            payee("p-market", "CB MARKET FRESH 12/01 525130******2"),
            payee("p-market2", "MARKET FRESH 14/02"),
            payee("p-cinema", "CINEMA PATHE"),
        ],
        transactions=[
            transaction("t1", "chk", "2026-03-02", -42_500, payee_id="p-market", category_id="food"),
            transaction("t2", "visa", "2026-03-05", -42_500, payee_id="p-market2", category_id="food"),
            transaction("t3", "chk", "2026-03-05", 42_500, payee_id="p-cinema", category_id="fun"),
            transaction("t4", "chk", "2026-02-20", -90_000, payee_id="p-cinema"),
            transaction("t5", "visa", "2026-01-10", -12_000, payee_id="p-cinema", category_id="fun"),
        ],
        subtransactions=[
            line("l1", "t4", -60_000, category_id="fun"),
            line("l2", "t4", -30_000, category_id="food", payee_id="p-market"),
        ],
    )


def ids(criteria: Criteria) -> list[str]:
    return [found.id for found in matching(plan(), criteria)]


WINDOW = {"since": D("2026-01-01"), "until": D("2026-03-31")}


def test_everything_in_the_window_comes_newest_first_then_by_id():
    assert ids(Criteria(**WINDOW)) == ["t2", "t3", "t1", "t4", "t5"]


def test_the_window_is_inclusive_at_both_ends():
    assert ids(Criteria(since=D("2026-02-20"), until=D("2026-03-02"))) == ["t1", "t4"]


def test_an_amount_matches_exactly_with_its_sign():
    assert ids(Criteria(**WINDOW, amount=-42_500)) == ["t2", "t1"]
    assert ids(Criteria(**WINDOW, amount=42_500)) == ["t3"]


def test_accounts_filter():
    assert ids(Criteria(**WINDOW, account_ids=frozenset({"visa"}))) == ["t2", "t5"]


def test_a_split_matches_a_category_one_of_its_lines_has_and_is_listed_once():
    assert ids(Criteria(**WINDOW, category_ids=frozenset({"food"}))) == ["t2", "t1", "t4"]
    assert ids(Criteria(**WINDOW, category_ids=frozenset({"food", "fun"}))) == ["t2", "t3", "t1", "t4", "t5"]


def test_payee_text_ignores_card_numbers_dates_and_payment_words():
    assert ids(Criteria(**WINDOW, payee="market fresh")) == ["t2", "t1", "t4"]
    assert ids(Criteria(**WINDOW, payee="CB MARKET FRESH 03/03")) == ["t2", "t1", "t4"]
    assert ids(Criteria(**WINDOW, payee="bakery")) == []


def test_criteria_combine():
    criteria = Criteria(**WINDOW, payee="cinema", account_ids=frozenset({"chk"}), amount=-90_000)

    assert ids(criteria) == ["t4"]


def test_a_narrow_window_on_an_index_stops_at_the_window():
    assert ids(Criteria(since=D("2026-03-03"), until=D("2026-03-31"), account_ids=frozenset({"chk"}))) == [
        "t3"
    ]


accounts = st.sampled_from(["chk", "visa"])
categories = st.sampled_from(["food", "fun", None])
payees = st.sampled_from(["p-market", "p-market2", "p-cinema", None])


@st.composite
def random_plan(draw):
    rows = []
    for number in range(draw(st.integers(0, 25))):
        day = date(2026, 1, 1) + timedelta(days=draw(st.integers(0, 120)))
        rows.append(
            transaction(
                f"t{number:02d}",
                draw(accounts),
                day.isoformat(),
                draw(st.sampled_from([-42_500, 42_500, -1_000])),
                category_id=draw(categories),
                payee_id=draw(payees),
            )
        )
    base = plan()
    return snapshot(
        accounts=[account("chk"), account("visa", "Visa")],
        categories=[category("food", "g", "Groceries"), category("fun", "g", "Outings")],
        category_groups=[group("g", "Everyday")],
        payees=[payee(p.id, p.name) for p in base.payees.values()],
        transactions=rows,
    )


@settings(max_examples=60)
@given(
    random_plan(),
    st.integers(0, 120),
    st.integers(0, 60),
    st.sampled_from([None, -42_500]),
    st.sampled_from([None, frozenset({"chk"})]),
    st.sampled_from([None, frozenset({"food"})]),
    st.sampled_from([None, "market", "cinema"]),
)
def test_the_indexes_give_what_a_plain_scan_gives(
    snap, start, length, amount, account_ids, category_ids, text
):
    since = date(2026, 1, 1) + timedelta(days=start)
    criteria = Criteria(since, since + timedelta(days=length), amount, account_ids, category_ids, text)

    def scanned(t) -> bool:
        payee_name = snap.payees[t.payee_id].name if t.payee_id else ""
        return (
            criteria.since <= t.date <= criteria.until
            and (amount is None or t.amount == amount)
            and (account_ids is None or t.account_id in account_ids)
            and (category_ids is None or t.category_id in category_ids)
            and (text is None or normalise_payee(text) in normalise_payee(payee_name))
        )

    expected = sorted(
        (t for t in snap.transactions.values() if scanned(t)), key=lambda t: (-t.date.toordinal(), t.id)
    )
    assert [t.id for t in matching(snap, criteria)] == [t.id for t in expected]


def test_criteria_read_from_the_smallest_index_still_hold_for_every_other_criterion():
    small = snapshot(
        accounts=[account("chk"), account("visa", "Visa")],
        category_groups=[group("g", "Everyday")],
        categories=[category("food", "g", "Groceries")],
        transactions=[
            transaction("t1", "chk", "2026-03-01", -1_000, category_id="food"),
            transaction("t2", "visa", "2026-03-02", -2_000, category_id="food"),
            transaction("t3", "chk", "2026-03-03", -3_000),
            transaction("t4", "chk", "2026-03-04", -4_000),
            transaction("t5", "visa", "2026-03-05", -5_000),
        ],
    )

    def found(**criteria) -> list[str]:
        return [t.id for t in matching(small, Criteria(**WINDOW, **criteria))]

    # Groceries (2) is smaller than checking (3): its Visa purchase is left out by the account.
    assert found(account_ids=frozenset({"chk"}), category_ids=frozenset({"food"})) == ["t1"]
    # Visa (2) is read first: its uncategorised purchase is left out by the category.
    assert found(account_ids=frozenset({"visa"}), category_ids=frozenset({"food"})) == ["t2"]
