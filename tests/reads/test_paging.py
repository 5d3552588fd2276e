"""Cursors of paged reads: opaque, bound to one query and one kind of listing, refused when
altered, reused elsewhere or signed under a secret key no longer in use."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.oplog.log import KEYSET_CURSOR
from avenir_mcp.values.paging import CURSOR_REFUSAL, InvalidCursor, paginate, sign_cursor

QUERY = {"tool": "list_payees", "plan": "p1", "search": None}


def walk(items, limit: int, query=QUERY) -> list[list]:
    """Every page of `items`, following next_cursor to the end."""
    pages, cursor = [], None
    while True:
        page = paginate(items, limit=limit, cursor=cursor, query=query)
        pages.append(list(page.items))
        cursor = page.next_cursor
        if cursor is None:
            return pages


@given(st.lists(st.integers(), max_size=60), st.integers(min_value=1, max_value=200))
def test_following_the_cursors_gives_every_item_once_in_order(items, limit):
    pages = walk(items, limit)

    assert [item for page in pages for item in page] == items
    assert all(len(page) == limit for page in pages[:-1])
    assert len(pages[-1]) <= limit


def test_an_iterator_is_paged_like_a_list_and_read_no_further_than_needed():
    consumed = []

    def numbers():
        for number in range(1000):
            consumed.append(number)
            yield number

    first = paginate(numbers(), limit=10, cursor=None, query=QUERY)
    second = paginate(range(1000), limit=10, cursor=first.next_cursor, query=QUERY)

    assert first.items == tuple(range(10))
    assert first.total is None
    assert len(consumed) == 11
    assert second.items == tuple(range(10, 20))
    assert second.total == 1000


def test_the_last_page_has_no_cursor():
    page = paginate([1, 2, 3], limit=3, cursor=None, query=QUERY)

    assert page.items == (1, 2, 3)
    assert page.next_cursor is None


def test_the_same_query_in_another_key_order_accepts_the_cursor():
    cursor = paginate(list(range(10)), limit=4, cursor=None, query=QUERY).next_cursor
    reordered = {"search": None, "plan": "p1", "tool": "list_payees"}

    assert paginate(list(range(10)), limit=4, cursor=cursor, query=reordered).items == (4, 5, 6, 7)


@pytest.mark.parametrize(
    "other_query",
    [
        {**QUERY, "tool": "find_transactions"},
        {**QUERY, "plan": "p2"},
        {**QUERY, "search": "market"},
    ],
)
def test_a_cursor_of_another_tool_plan_or_filter_is_refused(other_query):
    cursor = paginate(list(range(10)), limit=4, cursor=None, query=QUERY).next_cursor

    with pytest.raises(InvalidCursor, match=r"^This cursor belongs to another query"):
        paginate(list(range(10)), limit=4, cursor=cursor, query=other_query)


def first_cursor(query=QUERY) -> str:
    return paginate(list(range(10)), limit=4, cursor=None, query=query).next_cursor


def test_an_altered_cursor_is_refused():
    cursor = first_cursor()
    payload, stamp, signature = cursor.split(":")
    forged_payload = base64.urlsafe_b64encode(b'["0000000000000000",400]').rstrip(b"=").decode()

    for forged in (
        f"{forged_payload}:{stamp}:{signature}",
        f"{payload}:{stamp}:{signature[:-2]}{'BB' if signature.endswith('AA') else 'AA'}",
        cursor + "x",
        cursor + "x" * 500,
    ):
        with pytest.raises(InvalidCursor) as refused:
            paginate(list(range(10)), limit=4, cursor=forged, query=QUERY)
        assert str(refused.value) == CURSOR_REFUSAL


def test_a_cursor_of_another_kind_of_listing_is_refused_even_for_the_same_query():
    other_kind = sign_cursor(KEYSET_CURSOR, QUERY, 4)

    with pytest.raises(InvalidCursor) as refused:
        paginate(list(range(10)), limit=4, cursor=other_kind, query=QUERY)
    assert str(refused.value) == CURSOR_REFUSAL


@given(st.text(max_size=600))
def test_any_text_that_is_not_a_cursor_is_refused_in_one_line(text):
    with pytest.raises(InvalidCursor) as refused:
        paginate([1, 2], limit=1, cursor=text, query=QUERY)

    assert str(refused.value) == CURSOR_REFUSAL


def test_a_stale_cursor_made_under_a_retired_secret_key_is_refused(settings):
    cursor = first_cursor()
    settings.SECRET_KEY = "another key " + settings.SECRET_KEY

    with pytest.raises(InvalidCursor) as refused:
        paginate(list(range(10)), limit=4, cursor=cursor, query=QUERY)
    assert str(refused.value) == CURSOR_REFUSAL


def test_a_cursor_made_before_a_key_rotation_stays_valid_while_the_old_key_is_a_fallback(settings):
    cursor = first_cursor()
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "another key " + settings.SECRET_KEY

    assert paginate(list(range(10)), limit=4, cursor=cursor, query=QUERY).items == (4, 5, 6, 7)


def test_a_cursor_reveals_no_filter_it_is_bound_to():
    query = {**QUERY, "search": "NETFLIX secret words"}
    cursor = first_cursor(query)
    decoded = base64.urlsafe_b64decode(cursor.split(":")[0] + "==")

    assert b"NETFLIX" not in decoded
    assert b"p1" not in decoded
