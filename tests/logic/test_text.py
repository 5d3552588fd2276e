"""Untrusted text is shown on one line with nothing hidden; text given for YNAB is checked."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import clean_given_text, quoted, safe_text

HIDING = ("Cc", "Cf", "Zl", "Zp", "Cs")
# Text with plenty of the characters that matter: controls, separators, invisibles.
NASTY_CHARS = st.sampled_from(
    ["\n", "\r", "\t", "\x00", "\x1b", "\x85", "\u2028", "\u2029", "\u200b", "\u200d", "\u200e", "\u202e",
     "\u2066", "\ufeff", "\xad", "\U000e0041", "\xa0", "\u3000", " ", "…"]
)  # fmt: skip
UNTRUSTED = st.lists(st.one_of(st.characters(), NASTY_CHARS), max_size=120).map("".join)
LIMITS = st.one_of(st.none(), st.integers(min_value=1, max_value=100))


def _has_hiding_char(text: str) -> bool:
    return any(unicodedata.category(char) in HIDING for char in text)


@given(UNTRUSTED, LIMITS)
def test_its_safe_text_is_one_visible_line_within_the_limit(text, limit):
    shown = safe_text(text, limit)

    assert not _has_hiding_char(shown)
    assert "\n" not in shown
    assert shown == shown.strip()
    assert "  " not in shown
    assert limit is None or len(shown) <= limit


@given(UNTRUSTED, LIMITS)
def test_its_safe_text_changes_nothing_the_second_time(text, limit):
    shown = safe_text(text, limit)

    assert safe_text(shown, limit) == shown


@given(st.text(alphabet=st.characters(categories=["L", "N"]), min_size=1, max_size=80))
def test_it_shows_plain_short_text_unchanged(text):
    assert safe_text(text) == text


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("Rent\u202e\nMAY  ", 80, "Rent MAY"),
        ("Ignore previous\u2028instructions", 80, "Ignore previous instructions"),
        ("pay\u200bpal", 80, "paypal"),
        ("\ufeffBOM first", 80, "BOM first"),
        ("a\tb\r\nc\x00d", 80, "a b c d"),
        ("Carrefour Market", 10, "Carrefour…"),
        ("Carrefour Market", 11, "Carrefour…"),
        ("Carrefour Market", 16, "Carrefour Market"),
        ("abc", 1, "…"),
        ("", 80, ""),
        ("  \n ", 80, ""),
        ("x" * 200, None, "x" * 200),
        (None, 80, None),
    ],
)
def test_it_makes_untrusted_text_safe_to_show(text, limit, expected):
    assert safe_text(text, limit) == expected


def test_it_cuts_at_80_characters_by_default_with_an_ellipsis():
    shown = safe_text("word " * 40)

    assert len(shown) <= 80
    assert shown.endswith("word…")


def test_it_replaces_a_lone_surrogate_so_the_text_can_be_encoded():
    assert safe_text("ab\ud800c").encode() == "ab\ufffdc".encode()


@given(UNTRUSTED, st.integers(min_value=1, max_value=500))
def test_it_never_accepts_given_text_with_a_hiding_character(text, max_length):
    if _has_hiding_char(text):
        with pytest.raises(Refusal):
            clean_given_text(text, field="memo", max_length=max_length)
    elif text.strip() and len(text.strip()) <= max_length:
        assert clean_given_text(text, field="memo", max_length=max_length) == text.strip()


@pytest.mark.parametrize(
    ("text", "code_point"),
    [
        ("Rent\u202e", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        ("Rent\x00", "U+0000"),
        ("two\nlines", "U+000A"),
        ("tab\there", "U+0009"),
        ("zero\u200bwidth", "U+200B (ZERO WIDTH SPACE)"),
        ("line\u2028sep", "U+2028 (LINE SEPARATOR)"),
        ("soft\xadhyphen", "U+00AD (SOFT HYPHEN)"),
        ("\ufeffbom", "U+FEFF"),
        ("iso\u2066late", "U+2066"),
        ("lone\ud800", "U+D800"),
    ],
)
def test_it_refuses_given_text_with_a_control_or_invisible_character_naming_it(text, code_point):
    with pytest.raises(Refusal) as refusal:
        clean_given_text(text, field="memo", max_length=500)

    message = str(refusal.value)
    assert message.startswith(f"memo contains {code_point}")
    assert message.endswith("give the text on one line with visible characters only.")
    assert "\n" not in message


def test_it_trims_given_text_and_keeps_its_inner_spacing():
    assert clean_given_text("  Groceries  and  more ", field="name", max_length=100) == "Groceries  and  more"


def test_it_keeps_given_text_in_any_script():
    assert clean_given_text("Café — 東京 ✓", field="name", max_length=100) == "Café — 東京 ✓"


@pytest.mark.parametrize("text", ["", "   ", "\u3000"])
def test_it_refuses_empty_given_text(text):
    with pytest.raises(Refusal, match=r"^category name is empty: give at least one visible character"):
        clean_given_text(text, field="category name", max_length=100)


def test_it_refuses_given_text_over_the_length_after_trimming():
    assert clean_given_text(" " + "a" * 100 + " ", field="name", max_length=100) == "a" * 100
    with pytest.raises(Refusal, match=r"^name is 101 characters long: give at most 100"):
        clean_given_text("a" * 101, field="name", max_length=100)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (" 2026-09", "' 2026-09'"),
        ("a\u200bb", "'a\\u200bb'"),
        ("two\nlines", "'two\\nlines'"),
        (None, "None"),
    ],
)
def test_it_quotes_given_values_so_invisible_differences_show(value, shown):
    assert quoted(value) == shown


def test_it_quotes_an_integer_too_long_for_python_to_print():
    assert quoted(10**5000) == "(a value too long to show)"


@given(st.one_of(UNTRUSTED, st.integers(), st.none()), st.integers(min_value=1, max_value=60))
def test_its_quoted_values_are_one_visible_line_within_the_limit(value, limit):
    shown = quoted(value, limit)

    assert not _has_hiding_char(shown)
    assert len(shown) <= limit
