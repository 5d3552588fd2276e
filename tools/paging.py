"""Pages of a read tool's list, with opaque cursors bound to one query.

A paged tool builds its whole, ordered list (or an iterator over it) and calls
`paginate(items, limit=..., cursor=..., query={...})`. `query` names everything the list
depends on: the tool, the plan's real id, every filter (not `limit`, which may change
from page to page). The cursor carries the next offset and a digest of that query,
HMAC-signed with a key derived from `settings.SECRET_KEY`, base64url so it is one opaque
token. A cursor given to another query (another tool, plan or filter), altered, or not a
cursor at all is refused: `This cursor belongs to another query; call again without cursor.`

Offsets index the list as it is at each call: a plan changed between two pages may shift
an item across a page boundary. A read is a view at one moment; the agent can start over.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Generic, TypeVar

from django.conf import settings
from mcp.server.mcpserver.exceptions import ToolError

MAX_PAGE = 200
CURSOR_REFUSAL = "This cursor belongs to another query; call again without cursor."
_MAX_CURSOR_LENGTH = 500
_SIGNATURE_BYTES = 16

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
    """The page of `items` that `cursor` points to (the first without one), `limit` long.

    A sequence is sliced (and `total` given); any other iterable is consumed only as far as
    the page needs plus one item, so a lazy newest-first walk stops early.
    """
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit must be 1 to {MAX_PAGE}, not {limit}")
    offset = cursor_offset(cursor, query)
    if isinstance(items, Sequence):
        window, total = tuple(items[offset : offset + limit + 1]), len(items)
    else:
        window, total = tuple(islice(items, offset, offset + limit + 1)), None
    more = len(window) > limit
    next_cursor = make_cursor(offset + limit, query) if more else None
    return Page(items=window[:limit], next_cursor=next_cursor, offset=offset, total=total)


def make_cursor(offset: int, query: Mapping[str, Any]) -> str:
    """The opaque cursor for `offset` in the list `query` describes."""
    payload = json.dumps([offset, _digest(query)], separators=(",", ":")).encode()
    return f"{_b64(payload)}.{_b64(_signature(payload))}"


def cursor_offset(cursor: str | None, query: Mapping[str, Any]) -> int:
    """The offset `cursor` carries, 0 without one; refused unless it was made for `query`."""
    if cursor is None:
        return 0
    payload = _verified_payload(cursor)
    try:
        offset, digest = json.loads(payload)
    except (ValueError, TypeError):
        raise ToolError(CURSOR_REFUSAL) from None
    if type(offset) is not int or offset < 0 or digest != _digest(query):
        raise ToolError(CURSOR_REFUSAL)
    return offset


def _verified_payload(cursor: str) -> bytes:
    if not isinstance(cursor, str) or len(cursor) > _MAX_CURSOR_LENGTH or cursor.count(".") != 1:
        raise ToolError(CURSOR_REFUSAL)
    encoded_payload, encoded_signature = cursor.split(".")
    try:
        payload, signature = _unb64(encoded_payload), _unb64(encoded_signature)
    except (ValueError, binascii.Error):
        raise ToolError(CURSOR_REFUSAL) from None
    if not hmac.compare_digest(signature, _signature(payload)):
        raise ToolError(CURSOR_REFUSAL)
    return payload


def _digest(query: Mapping[str, Any]) -> str:
    """A short digest of the query; equal queries (in any key order) give equal digests."""
    canonical = json.dumps(query, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _signature(payload: bytes) -> bytes:
    return hmac.new(_key(), payload, hashlib.sha256).digest()[:_SIGNATURE_BYTES]


def _key() -> bytes:
    # Derived, so a cursor never reveals anything about the secret key, and read per call,
    # so a changed key (tests, a rotation) invalidates old cursors instead of crashing.
    return hashlib.sha256(f"avenir-mcp paging cursor {settings.SECRET_KEY}".encode()).digest()


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not text.isascii():
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
