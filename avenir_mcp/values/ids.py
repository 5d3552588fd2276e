"""Ids the agent gives, checked before they go anywhere near a URL.

Every YNAB id (plans, accounts, categories, payees, transactions, schedules, and the
`last-used` alias) fits `ID_PATTERN`; anything else is refused before any request, so an
agent's text can never add a path segment (`/`), climb (`..`), query (`?`) or inject
anything into a URL, a log or a message.
"""

from __future__ import annotations

import re
import unicodedata

from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted

ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]*"
ID_MAX_LENGTH = 100
# The same rule as one anchored pattern, for JSON schemas (`Field(pattern=...)`).
ID_SCHEMA_PATTERN = rf"^[A-Za-z0-9][A-Za-z0-9_-]{{0,{ID_MAX_LENGTH - 1}}}$"

_ID = re.compile(ID_PATTERN)
_SHOWN_LENGTH = 24
_RULE = f"ids are 1-{ID_MAX_LENGTH} letters, digits, '_' or '-', starting with a letter or digit"


class IdError(Refusal):
    """An id that does not fit `ID_PATTERN`; the message says what a valid id looks like."""


def is_valid_id(value: str) -> bool:
    """True when `value` is 1-100 ASCII letters, digits, `_` or `-`, not starting with `_`/`-`."""
    return isinstance(value, str) and len(value) <= ID_MAX_LENGTH and _ID.fullmatch(value) is not None


def check_id(value: str, *, what: str, source: str | None = None) -> str:
    """`value` unchanged when it is a valid id, else `IdError`.

    `what` names the kind of id (`account`); `source`, when given, names the tool whose
    ids are valid (`list_accounts`) and the message ends by pointing to it. The value is
    shown through `quoted` (escaped, one line, short), never as given.
    """
    if is_valid_id(value):
        return value
    advice = f"use an id from {source}" if source else _RULE
    raise IdError(f"{quoted(value, _SHOWN_LENGTH)} is not a valid {what} id ({_flaw(value)}): {advice}.")


def _flaw(value: object) -> str:
    """The first thing wrong with `value`, said so the agent can see it even when invisible."""
    if not isinstance(value, str):
        return "an id is text"
    if not value:
        return "it is empty"
    if len(value) > ID_MAX_LENGTH:
        return f"{len(value)} characters, at most {ID_MAX_LENGTH}"
    if not value[0].isascii() or not value[0].isalnum():
        return f"it starts with {_char_name(value[0])}"
    bad = next(char for char in value if not (char.isascii() and (char.isalnum() or char in "_-")))
    return f"it contains {_char_name(bad)}"


def _char_name(char: str) -> str:
    if char.isprintable() and not char.isspace() and unicodedata.category(char) != "Cf":
        return f"'{char}'"
    return f"U+{ord(char):04X}"


def not_in_plan(what: str, value: str, source: str) -> Refusal:
    """`No transaction 't9' in this plan; find_transactions gives the valid ids.` (the read tools' words)."""
    return Refusal(f"No {what} {quoted(value, 40)} in this plan; {source} gives the valid ids.")
