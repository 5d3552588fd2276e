"""The write kinds: what the operation log needs of each write tool, found by the tool's name.

A write tool is one typed function and one object (`tools.writes.flow.WriteTool`, a
`WriteKind`) holding its `build`, `apply`, `undo` and `settle`. Declaring the tool registers
that object here (`register`), so the log finds, for any operation, how to undo it
(docs/undo.md) and how to settle it when its answer was lost
(docs/confirmation.md#when-ynabs-answer-is-lost). Every tool module is imported when Django
starts (`tools.apps`), so the registry is complete in every process, the admin's included.

- `reversal(snapshot, op)`: pure: what undoing `op` would do now, item by item
  (`oplog.undo.Reversal`); None (the default) when the tool's operations cannot be undone.
- `undo(client, snapshot, op, reversal)`: the YNAB request(s) restoring `reversal.restorable`; returns
  the undo row's `UndoRecord` (docs/undo.md#per-tool; the contract is `oplog.undo`'s).
- `settle(client, snapshot, op)`: what YNAB's state says of an unsettled operation; None (the
  default) lets `oplog.settling.judge` judge it from `reversal`, item by item.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from avenir_mcp.oplog.undo import Reversal, UndoRecord

if TYPE_CHECKING:
    from avenir_mcp.oplog.models import Operation
    from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

SettledStatus = Literal["applied", "failed", "unknown", "pending"]
Landed = Literal["all", "none", "part", "unsure"]
PREFIX = "Settled from YNAB's state:"


@dataclass(frozen=True)
class Settlement:
    """What settling records on the row: `status`, `message` (the row's `error`: what landed,
    what to do), `undo_data` when it changes, and `final` False when settling must try again.
    `landed` says how much of the change is in YNAB (for an undo: whether its original is undone)."""

    status: SettledStatus
    message: str
    landed: Landed
    undo_data: Any = None
    final: bool = True


class WriteKind:
    """What the log needs of one write tool (module docstring); `name` is the tool's name."""

    name: ClassVar[str]

    @property
    def undoable(self) -> bool:
        """Whether this tool's operations can be undone (it defines `reversal`)."""
        return type(self).reversal is not WriteKind.reversal

    def reversal(self, snapshot: PlanSnapshot, op: Operation) -> Reversal[Any] | None:
        return None

    async def undo(
        self, client: YnabClient, snapshot: PlanSnapshot, op: Operation, reversal: Reversal[Any]
    ) -> UndoRecord:
        raise NotImplementedError(f"{self.name} has no undo.")

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement | None:
        return None


_kinds: dict[str, WriteKind] = {}
_lock = threading.Lock()


def register(kind: WriteKind) -> None:
    """Record `kind` under its tool's name; a second kind for one name is a mistake."""
    with _lock:
        existing = _kinds.get(kind.name)
        if existing is not None and type(existing).__qualname__ != type(kind).__qualname__:
            raise ValueError(f"Tool {kind.name} already has a write kind: {type(existing).__name__}.")
        _kinds[kind.name] = kind


def kind_of(tool: str) -> WriteKind | None:
    """The write kind of `tool`, or None for a tool this server does not know."""
    with _lock:
        return _kinds.get(tool)


def undoable_tools() -> list[str]:
    """The tools whose operations can be undone, sorted."""
    with _lock:
        return sorted(name for name, kind in _kinds.items() if kind.undoable)
