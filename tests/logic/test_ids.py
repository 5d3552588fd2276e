"""Ids are checked before they reach a URL: nothing an agent writes can change the path."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.values.ids import ID_MAX_LENGTH, ID_PATTERN, ID_SCHEMA_PATTERN, IdError, check_id, is_valid_id

URL_SAFE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
ID_LIKE = st.from_regex(rf"{ID_PATTERN}", fullmatch=True)


@pytest.mark.parametrize(
    "value",
    [
        "a",
        "last-used",
        "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "t9_2026-09-01",  # YNAB's scheduled-occurrence and subtransaction ids carry '_'
        "k3P9xQ2mTa7Z",
        "x" * ID_MAX_LENGTH,
    ],
)
def test_it_accepts_ynab_shaped_ids(value):
    assert is_valid_id(value)
    assert check_id(value, what="account") == value


@pytest.mark.parametrize(
    "value",
    [
        "",
        "../plans",
        "a/b",
        "a?x=1",
        "a%2Fb",
        "a.b",
        "-a",
        "_a",
        "a b",
        " a",
        "a\n",
        "a\u200b",
        "é",
        "１",
        "x" * (ID_MAX_LENGTH + 1),
    ],
)
def test_it_refuses_anything_else_before_it_reaches_a_url(value):
    assert not is_valid_id(value)
    with pytest.raises(IdError):
        check_id(value, what="account")


@given(st.one_of(ID_LIKE, st.text(max_size=120)))
def test_every_id_it_accepts_is_url_safe_and_within_length(value):
    if is_valid_id(value):
        assert set(value) <= URL_SAFE
        assert 1 <= len(value) <= ID_MAX_LENGTH
        assert value[0] not in "_-"


@given(st.one_of(ID_LIKE, st.text(max_size=120)))
def test_its_schema_pattern_agrees_with_its_check(value):
    assert (re.fullmatch(ID_SCHEMA_PATTERN, value) is not None and "\n" not in value) == is_valid_id(value)


@given(st.text(max_size=300))
def test_its_refusals_are_one_visible_line_whatever_the_value(value):
    if is_valid_id(value):
        return
    with pytest.raises(IdError) as refusal:
        check_id(value, what="category")

    message = str(refusal.value)
    assert " is not a valid category id (" in message
    assert len(message) < 200
    assert not any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs") for char in message)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a/b", "'a/b' is not a valid account id (it contains '/')"),
        ("", "'' is not a valid account id (it is empty)"),
        ("_a", "'_a' is not a valid account id (it starts with '_')"),
        ("ab\u202ecd", "'ab\\u202ecd' is not a valid account id (it contains U+202E)"),
        ("a b", "'a b' is not a valid account id (it contains U+0020)"),
        ("x" * 101, "is not a valid account id (101 characters, at most 100)"),
    ],
)
def test_its_refusal_says_what_is_wrong_and_what_an_id_looks_like(value, expected):
    with pytest.raises(IdError) as refusal:
        check_id(value, what="account")

    assert expected in str(refusal.value)
    assert str(refusal.value).endswith(
        ": ids are 1-100 letters, digits, '_' or '-', starting with a letter or digit."
    )


def test_its_refusal_points_to_the_tool_that_gives_valid_ids():
    with pytest.raises(
        IdError, match=r"^'a b' is not a valid account id \(.*\): use an id from list_accounts\.$"
    ):
        check_id("a b", what="account", source="list_accounts")


def test_it_refuses_a_value_that_is_not_text():
    with pytest.raises(IdError, match="an id is text"):
        check_id(42, what="plan")  # type: ignore[arg-type]
