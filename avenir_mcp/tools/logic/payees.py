"""Payee names reduced to the merchant, so one merchant's transactions group together.

Banks write the same merchant many ways: `CB CARREFOUR 12/01 525130******2` and
`CARREFOUR 14/02` are both `CARREFOUR`. The normalised name is what category suggestions,
duplicate detection, recurring charges and payee search compare (docs/conventions.md#heuristics). It is a
pure function of the name, and normalising a normalised name changes nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from avenir_mcp.values.text import safe_text

# Rule: cut from an IBAN mention on. `VIR SEPA J DUPONT IBAN FR76...` → `J DUPONT`; also
# an IBAN written without the word, compact (`FR7630006000011234567890189`) or in groups
# of four (`FR76 3000 6000 0112 3456 7890 189`).
_IBAN_MENTION = re.compile(
    r"(?<![A-Z0-9])"
    r"(?:IBAN|[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}|[A-Z]{2}[0-9]{2}(?: [A-Z0-9]{4}){3,7}(?: [A-Z0-9]{1,3})?)"
    r"(?![A-Z0-9]).*"
)
# Rule: cut from `FACT` + 6 digits on (an invoice number). `EDF FACT 123456 ECH 05` → `EDF`.
_INVOICE = re.compile(r"(?<![A-Z0-9])FACT[ :]?[0-9]{6}.*")
# Rule: remove masked card numbers, whole tokens of digits and `*`/`X` masks with at least
# one of each: `525130******2`, `XXXX1234`, `X1234`. `CB FNAC XXXX1234` → `FNAC`.
_MASKED_CARD = re.compile(r"(?<![A-Z0-9*])(?=[0-9]*[X*])(?=[X*]*[0-9])[0-9X*]{5,}(?![A-Z0-9*])")
# Rule: remove dates `12/01`, `12/01/26`, `12/01/2026` (day and month either way round, so
# `24/7` or `50/50` in a name stay). `CARREFOUR 12/01` → `CARREFOUR`.
_DATE = re.compile(r"(?<![0-9/])(?P<a>[0-9]{2})/(?P<b>[0-9]{2})(?:/[0-9]{4}|/[0-9]{2})?(?![0-9/])")
# Rule: remove runs of 5 or more digits (references, terminal numbers).
# `AMAZON PAYMENTS 1234567` → `AMAZON PAYMENTS`; `FNAC 1234` keeps its 4 digits.
_LONG_NUMBER = re.compile(r"[0-9]{5,}")
# Rule: strip leading payment-type words, longest first, whole words only, repeatedly.
# `PRLV SEPA FREE MOBILE` → `FREE MOBILE`; `CB CARTE FNAC` → `FNAC`; `CBX` and `VIRGIN` stay.
_PAYMENT_WORDS = ("PRLV SEPA", "VIR INST", "VIR SEPA", "VIREMENT", "CARTE", "PRLV", "VIR", "CB")
_LEADING_PAYMENT_WORD = re.compile(rf"^(?:{'|'.join(map(re.escape, _PAYMENT_WORDS))})(?: |$)")


@lru_cache(maxsize=8192)  # payee names repeat across thousands of transactions
def normalise_payee(name: str | None) -> str:
    """The merchant in a bank's payee text, upper-case, one line, single spaces.

    Rules in order (each shown on its pattern above): one line and upper-case with spaces
    collapsed; cut from an IBAN mention on; cut from `FACT` + 6 digits on; remove masked
    cards, dates and runs of 5+ digits; strip leading payment-type words. The rules are
    applied until nothing changes, because one can uncover another (`12/01 CB FNAC`: the
    date's removal leaves `CB` leading). When nothing is left (`VIREMENT`, `CB 12/01`), the
    upper-case text itself is the name, so such payees still compare by what they say.
    `None` → `""`.
    """
    if name is None:
        return ""
    upper = _one_line_upper(name)
    current, previous = upper, None
    while current != previous:  # ends: a pass that changes the text makes it shorter
        previous, current = current, _apply_rules(current)
    return current or upper


def _one_line_upper(name: str) -> str:
    """Rule: upper-case, one line, spaces collapsed. `Carrefour  market\\n` → `CARREFOUR MARKET`."""
    return (safe_text(name, None) or "").upper()  # safe_text is one line, spaces collapsed


def _apply_rules(text: str) -> str:
    """One pass of every rule; a removed piece becomes a space so its neighbours never join."""
    text = _IBAN_MENTION.sub("", text)
    text = _INVOICE.sub("", text)
    text = _MASKED_CARD.sub(" ", text)
    text = _DATE.sub(_date_removed, text)
    text = _LONG_NUMBER.sub(" ", text)
    text = _one_line_upper(text)
    while (leading := _LEADING_PAYMENT_WORD.match(text)) is not None:
        text = text[leading.end() :]
    return text


def _date_removed(match: re.Match[str]) -> str:
    """A space for a plausible day/month pair (either order), else the text unchanged."""
    first, second = int(match["a"]), int(match["b"])
    is_date = (1 <= first <= 31 and 1 <= second <= 12) or (1 <= first <= 12 and 1 <= second <= 31)
    return " " if is_date else match[0]
