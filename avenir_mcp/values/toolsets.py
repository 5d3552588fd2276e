"""Toolsets: the named groups of MCP tools a caller is offered (docs/conventions.md#toolsets).

Every tool belongs to one toolset (`mcp_surface.registry`). The service offers the toolsets
`AVENIR_MCP_TOOLSETS` names (default: all); a token or an OAuth grant may narrow them further,
never widen them (`narrowed`). `plans` and `operations` are always offered: without them the
agent could neither find a plan nor see and undo what it changed.

Toolsets are written as the setting takes them: names separated by commas, in any order and
case (`toolsets_named`); stored and shown in the order of `TOOLSETS` (`toolsets_text`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, get_args

Toolset = Literal[
    "plans", "accounts", "categories", "transactions", "payees", "schedules", "insights", "operations"
]
TOOLSETS: tuple[Toolset, ...] = get_args(Toolset)

ALL_TOOLSETS: frozenset[str] = frozenset(TOOLSETS)

ALWAYS_OFFERED: frozenset[str] = frozenset({"plans", "operations"})
"""Offered to every caller, whatever the setting or a token says."""

PURPOSES: dict[str, str] = {
    "plans": "which plans there are (always offered)",
    "accounts": "accounts, their balances and bank links, reconciling",
    "categories": "categories and groups, what is assigned and available, moving money, targets",
    "transactions": "finding, importing, categorising, approving, flagging, entering and splitting "
    "transactions",
    "payees": "payees and their names",
    "schedules": "scheduled transactions",
    "insights": "computed answers: summaries, trends, forecasts, runway, debts, savings",
    "operations": "what was changed through avenir-mcp, and undoing it (always offered)",
}
"""What each toolset is for, as docs/tools.md lists them."""


def toolsets_named(text: str) -> frozenset[str]:
    """The toolsets a comma-separated `text` names, with those always offered; blank: all.

    An unknown name raises `ValueError` with one line naming the valid ones."""
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    if not names:
        return ALL_TOOLSETS
    unknown = [name for name in names if name not in ALL_TOOLSETS]
    if unknown:
        named = ", ".join(repr(name) for name in unknown)
        raise ValueError(f"unknown toolset {named}; the toolsets are {', '.join(TOOLSETS)}.")
    return frozenset(names) | ALWAYS_OFFERED


def stored_toolsets(text: str) -> frozenset[str] | None:
    """The toolsets a token or grant stores (`toolsets_text`); None when blank: no narrowing.

    A name no longer known is left out rather than refused: the caller then sees less, never more."""
    if not text.strip():
        return None
    return frozenset(name.strip() for name in text.split(",")) & ALL_TOOLSETS | ALWAYS_OFFERED


def toolsets_text(toolsets: Iterable[str]) -> str:
    """`toolsets` comma-separated in the order of `TOOLSETS`, the form they are stored and shown in."""
    chosen = set(toolsets)
    return ",".join(name for name in TOOLSETS if name in chosen)


def narrowed(offered: frozenset[str], chosen: frozenset[str] | None) -> frozenset[str]:
    """What a caller sees: the service's `offered` toolsets, within its token's or grant's
    `chosen` ones (None: no narrowing), with those always offered."""
    within = offered if chosen is None else offered & chosen
    return within | ALWAYS_OFFERED
