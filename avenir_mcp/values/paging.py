"""Pages of a read tool's list, and the opaque cursors every paged listing hands out.

A paged tool builds its whole, ordered list (or an iterator over it) and calls
`paginate(items, limit=..., cursor=..., query={...})`. `query` names everything the list
depends on: the tool, the plan's real id, every filter (not `limit`, which may change
from page to page). Its cursor carries the next offset.

Every cursor (these offsets, the operation log's keyset positions) is made by
`sign_cursor(kind, query, position)` and read back by `read_cursor`: `django.core.signing`
with a salt per kind of cursor, so one is never accepted as another, holding the position
and a digest of the query, so it is refused by any other query. A cursor of another kind or
query, altered, signed under a secret key no longer in use (Django's SECRET_KEY_FALLBACKS keep
one valid through a rotation), or not a cursor at all is refused as `InvalidCursor`:
`This cursor belongs to another query; call again without cursor.`

Offsets index the list as it is at each call: a plan changed between two pages may shift
an item across a page boundary. A read is a view at one moment; the agent can start over.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Generic, TypeVar

from django.core import signing

from avenir_mcp.values.refusal import Refusal

MAX_PAGE = 200
CURSOR_REFUSAL = "This cursor belongs to another query; call again without cursor."
_MAX_CURSOR_LENGTH = 500  # as the tools' `cursor` argument allows
OFFSET_CURSOR = "offset"  # the kind of `paginate`'s cursors (its salt)


class InvalidCursor(Refusal):
    """A cursor this listing did not hand out for this query (with a key still in use)."""

    def __init__(self) -> None:
        super().__init__(CURSOR_REFUSAL)


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page: its items, the cursor of the next page (None at the end), where it starts,
    and how many items the whole list holds (None when paged from an iterator)."""

    items: tuple[T, ...]
    next_cursor: str | None
    offset: int
    total: int | None


def paginate(
    items: Sequence[T] | Iterable[T], *, limit: int, cursor: str | None, query: Mapping[str, Any]
) -> Page[T]:
    """The page of `items` that `cursor` points to (the first without one), `limit` long (1 to
    `MAX_PAGE`: every tool bounds its limit argument so).

    A sequence is sliced (and `total` given); any other iterable is consumed only as far as
    the page needs plus one item, so a lazy newest-first walk stops early.
    """
    offset = 0 if cursor is None else read_cursor(OFFSET_CURSOR, cursor, query)
    if isinstance(items, Sequence):
        window, total = tuple(items[offset : offset + limit + 1]), len(items)
    else:
        window, total = tuple(islice(items, offset, offset + limit + 1)), None
    more = len(window) > limit
    next_cursor = sign_cursor(OFFSET_CURSOR, query, offset + limit) if more else None
    return Page(items=window[:limit], next_cursor=next_cursor, offset=offset, total=total)


def sign_cursor(kind: str, query: Mapping[str, Any], position: Any) -> str:
    """An opaque cursor for `position` (JSON-able) in the list of `kind` that `query` describes."""
    return signing.dumps([_digest(query), position], salt=f"{__name__}.{kind}")


def read_cursor(kind: str, cursor: str, query: Mapping[str, Any]) -> Any:
    """The position `cursor` carries; `InvalidCursor` unless `sign_cursor(kind, query, ...)` made it."""
    if len(cursor) > _MAX_CURSOR_LENGTH:  # never one of ours: not worth checking its signature
        raise InvalidCursor
    try:
        digest, position = signing.loads(cursor, salt=f"{__name__}.{kind}")
    except (signing.BadSignature, ValueError, TypeError):
        raise InvalidCursor from None
    if digest != _digest(query):
        raise InvalidCursor
    return position


def _digest(query: Mapping[str, Any]) -> str:
    """A short digest of the query; equal queries (in any key order) give equal digests."""
    canonical = json.dumps(query, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
