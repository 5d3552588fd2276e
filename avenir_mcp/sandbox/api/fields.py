"""Reading request bodies field by field, refusing bad values the way YNAB does: a 400
whose detail names the field (and `(index: N)` for an item of an array).

Each reader returns the value, or `MISSING` when the field is absent and not required, so
partial updates can tell "not sent" from "sent as null".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Any, Final

from avenir_mcp.sandbox.api.http import bad_request


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()
MONEY_FIELDS = frozenset({"amount", "balance", "budgeted", "goal_target"})
MONEY_HINT = " (milliunits)"
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


class Body:
    """One JSON object of a request (`index` set when it is an item of an array)."""

    def __init__(self, data: Any, index: int | None = None, where: str = "") -> None:
        if not isinstance(data, dict):
            raise bad_request(f"{where or 'request body'} must be an object", index)
        self.data = data
        self.index = index

    @classmethod
    def wrapped(cls, body: dict[str, Any], member: str) -> Body:
        """The object under `member` (`{"account": {...}}`); 400 when it is missing."""
        if member not in body or body[member] is None:
            raise bad_request(f"{member} is required")
        return cls(body[member], where=member)

    def fail(self, detail: str) -> Exception:
        return bad_request(detail, self.index)

    def _get(self, name: str, required: bool, nullable: bool) -> Any:
        if name not in self.data:
            if required:
                raise self.fail(f"{name} is required")
            return MISSING
        value = self.data[name]
        if value is None and (required or not nullable):
            raise self.fail(f"{name} must not be null")
        return value

    def text(
        self,
        name: str,
        *,
        required: bool = False,
        nullable: bool = True,
        max_length: int | None = None,
        non_blank: bool = False,
    ) -> Any:
        value = self._get(name, required, nullable)
        if value is MISSING or value is None:
            return value
        if not isinstance(value, str):
            raise self.fail(f"{name} must be a string")
        if max_length is not None and len(value) > max_length:
            raise self.fail(f"{name} must be {max_length} characters or fewer (got {len(value)})")
        if non_blank and not value.strip():
            raise self.fail(f"{name} must not be blank")
        return value

    def integer(self, name: str, *, required: bool = False, nullable: bool = False) -> Any:
        value = self._get(name, required, nullable)
        if value is MISSING or value is None:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"{name} must be an integer{MONEY_HINT if name in MONEY_FIELDS else ''}")
        if abs(value) > 2**63 - 1:
            raise self.fail(f"{name} is out of range")
        return value

    def boolean(self, name: str, *, nullable: bool = False) -> Any:
        value = self._get(name, False, nullable)
        if value is MISSING or value is None:
            return value
        if not isinstance(value, bool):
            raise self.fail(f"{name} must be true or false")
        return value

    def day(self, name: str, *, required: bool = False, nullable: bool = False) -> Any:
        value = self._get(name, required, nullable)
        if value is MISSING or value is None:
            return value
        try:
            return date.fromisoformat(value) if isinstance(value, str) and len(value) == 10 else _no_date()
        except ValueError:
            raise self.fail(f"{name} must be a valid date in ISO format (YYYY-MM-DD)") from None

    def choice(
        self, name: str, choices: Sequence[Any], *, required: bool = False, nullable: bool = False
    ) -> Any:
        value = self._get(name, required, nullable)
        if value is MISSING or value is None:
            return value
        if value not in choices:
            shown = ", ".join(repr(c) if c == "" else str(c) for c in choices)
            raise self.fail(f"{name} must be one of: {shown}")
        return value

    def uuid(self, name: str, *, required: bool = False, nullable: bool = True) -> Any:
        value = self._get(name, required, nullable)
        if value is MISSING or value is None:
            return value
        if not isinstance(value, str) or not _UUID.match(value):
            raise self.fail(f"{name} must be formatted as a uuid (universally unique identifier)")
        return value

    def objects(self, name: str) -> Any:
        """A list of objects (`subtransactions`), or MISSING/None."""
        value = self._get(name, False, True)
        if value is MISSING or value is None:
            return value
        if not isinstance(value, list):
            raise self.fail(f"{name} must be an array")
        return value


def _no_date() -> date:
    raise ValueError("not a date")
