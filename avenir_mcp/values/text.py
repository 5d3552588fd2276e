"""Text at the trust boundary: what banks and YNAB send, and what the agent gives.

Payee names, memos and account or category names come from banks, from YNAB and from the
person; an agent reads them, so they are data that must never look like anything else
(a second line, a hidden instruction, text reversed by a direction override).

- `safe_text` makes such text safe to *show*: one line, invisible characters removed, cut
  to a length, `…` marking the cut. `shown_name` is it for a name (80 characters, what to
  show when there is none), `in_quotes` a name as previews quote it. `one_line` is its first
  step alone, for text that is ours (previews, the log's notes, docs): line breaks and
  whitespace runs become one space.
- `clean_given_text` checks text the agent *gives* for YNAB (names, memos): invisible or
  control characters are refused rather than silently removed, so what is written is
  exactly what the person was shown. `clean_given_note` is it for a note, whose line breaks
  are kept.
- `listed` joins the items of a list in a sentence whose items carry amounts: with `; `, so
  that a decimal comma (`income 0,00; assigned 2971,78`) cannot be misread as the end of an
  item (docs/conventions.md#money-in-text).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from avenir_mcp.values.refusal import Refusal

ELLIPSIS = "…"
SHOWN_NAME_LIMIT = 80
"""Characters of a name shown (`shown_name`)."""

# Categories that end a line (Cc: controls incl. \n, \r, \t, NEL; Zl/Zp: U+2028/U+2029).
_LINE_BREAKING = frozenset({"Cc", "Zl", "Zp"})
# Cf: zero-width spaces and joiners, direction marks/overrides/isolates, BOM, soft hyphen,
# tag characters. They show nothing, so they can only hide or reorder what is shown.
_INVISIBLE = "Cf"
# Cs: a lone surrogate (possible in JSON text) cannot be encoded to UTF-8 at all.
_UNENCODABLE = "Cs"
_REPLACEMENT = "\N{REPLACEMENT CHARACTER}"


def safe_text(value: str | None, limit: int | None = 80) -> str | None:
    """Untrusted text made safe to show on one line, at most `limit` (≥ 1) characters.

    Controls and line/paragraph separators become spaces, format characters are removed,
    whitespace runs collapse to one space, ends are trimmed; text longer than `limit` is
    cut and ends with `…` (the `…` counts in the limit). `limit=None` never cuts.
    `None` stays `None` so callers keep YNAB's difference between null and "".
    Example: `"Rent\\u202e\\nMAY  "` → `"Rent MAY"`.
    """
    if value is None:
        return None
    if not (value.isascii() and value.isprintable()):  # the common case needs no per-character pass
        value = "".join(_shown_char(char) for char in value)
    return _cut(one_line(value), limit)


def one_line(text: str) -> str:
    """`text` on one line: every line break (also U+2028/U+2029, VT, FF, NEL) and whitespace run
    becomes one space, ends trimmed. `"Budget\\n  Rent "` → `"Budget Rent"`."""
    return " ".join(text.split())


def _shown_char(char: str) -> str:
    """What one character becomes when shown: itself, a space, nothing, or U+FFFD."""
    category = unicodedata.category(char)
    if category in _LINE_BREAKING:
        return " "
    if category == _INVISIBLE:
        return ""
    if category == _UNENCODABLE:
        return _REPLACEMENT
    return char


def _cut(text: str, limit: int | None) -> str:
    """`text` cut to `limit` characters, the last of them `…`, when it is longer."""
    if limit is None or len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


LIST_SEPARATOR = "; "
"""Between the items of a list in a sentence that carry amounts (`listed`)."""


def listed(items: Iterable[str]) -> str:
    """The items of a list in a sentence or a preview line, when any item carries an amount:
    separated by `; ` rather than `, `, which a decimal comma would make ambiguous
    (`income 0,00; assigned 2971,78; activity -556,17`). One rule for every tool's text
    (docs/conventions.md#money-in-text)."""
    return LIST_SEPARATOR.join(items)


def quoted(value: object, limit: int = 32) -> str:
    """A value the agent gave, quoted for a refusal message: `' 2026-09'`, `'a\\u200bb'`.

    Python's `repr` keeps surrounding spaces and the quotes visible and escapes every
    control, separator and invisible character (so the agent sees why `'abc'` failed when it
    was `'abc\\u200b'`); the result is made one line and cut to `limit` like `safe_text`.
    """
    try:
        shown = repr(value)
    except ValueError:  # an int too long for str(): Python refuses to print it
        return "(a value too long to show)"
    return safe_text(shown, limit) or ""


def shown_name(text: str | None, empty: str = "") -> str:
    """A name from YNAB or a bank (payee, account, category, group, plan), safe to show: one
    line, invisible characters removed, at most `SHOWN_NAME_LIMIT` characters; `empty` when there is
    nothing visible (none given, or only invisible characters)."""
    return safe_text(text, SHOWN_NAME_LIMIT) or empty


def in_quotes(value: str | None) -> str:
    """A name as previews quote it (docs/confirmation.md#the-preview), safe to show: `‘Market Fresh’`."""
    return f"‘{shown_name(value)}’"


def clean_given_text(value: str, *, field: str, max_length: int) -> str:
    """Text the agent gives for YNAB (a name, a memo, a label), trimmed and checked.

    Refused with a `Refusal` (the message names `field`): empty after trimming; any
    control character (including NUL, tab and newline), format character (zero-width,
    direction mark or override, BOM, soft hyphen), line or paragraph separator, or lone
    surrogate, named by code point (`U+202E`); more than `max_length` characters.
    Inner spacing is kept as given: it is the person's text.
    """
    for char in value:
        if _refused_in_given_text(char):
            raise Refusal(
                f"{field} contains {_describe(char)}, a control or invisible character: "
                "give the text on one line with visible characters only."
            )
    trimmed = value.strip()
    if not trimmed:
        raise Refusal(f"{field} is empty: give at least one visible character.")
    if len(trimmed) > max_length:
        raise Refusal(f"{field} is {len(trimmed)} characters long: give at most {max_length}.")
    return trimmed


def clean_given_note(value: str, *, field: str, max_length: int) -> str:
    """A note the agent gives for YNAB, checked as `clean_given_text` checks text except that
    line breaks (LF, CRLF or CR) are kept, as LF, and each line's trailing spaces dropped; ""
    (or only spaces) is a note removed."""
    lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for char in "".join(lines):
        if _refused_in_given_text(char):
            raise Refusal(
                f"{field} contains {_describe(char)}, a control or invisible character: "
                "give text with visible characters and line breaks only."
            )
    note = "\n".join(line.rstrip() for line in lines).strip()
    if len(note) > max_length:
        raise Refusal(f"{field} is {len(note)} characters long: give at most {max_length}.")
    return note


def _refused_in_given_text(char: str) -> bool:
    category = unicodedata.category(char)
    return category in _LINE_BREAKING or category in (_INVISIBLE, _UNENCODABLE)


def _describe(char: str) -> str:
    """`U+202E (RIGHT-TO-LEFT OVERRIDE)`: the code point, and its name when it has one."""
    code_point = f"U+{ord(char):04X}"
    name = unicodedata.name(char, "")
    return f"{code_point} ({name})" if name else code_point
