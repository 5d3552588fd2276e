"""Typed values the operation log keeps as JSON: a tool's subject, undo data and undo record.

Each is a pydantic model, frozen and refusing fields it does not declare; `stored()` is the
JSON its row holds (made only at the database edge) and `from_stored` reads it back, so the
stored form stays plain JSON a person can read in the admin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """A typed value the log keeps as JSON: frozen, and refusing fields it does not declare.

    `stored()` is the row's JSON (the one place it is made); `from_stored` reads it back."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def stored(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any] | None) -> Self:
        return cls.model_validate(stored or {})


class Subject(Record):
    """A change as data (docs/confirmation.md#subjects-and-the-fingerprint): all of it is
    fingerprinted; the log keeps it without `NOT_STORED` (payee text, memos, amounts)."""

    NOT_STORED: ClassVar[frozenset[str]] = frozenset()

    def fingerprinted(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def stored(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude=set(self.NOT_STORED))
