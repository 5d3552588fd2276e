"""What YNAB's own state says of one unsettled operation: the `Settlement` to record.

An operation is unsettled while it is `pending` (begun, never completed: the process stopped,
or half of it is still being put back) or `unknown` (a request got no answer) and not yet
settled. Each is judged on a fresh snapshot by its tool's `Settler`:

- a tool may register its own (`@settler("move_money")`, next to the tool, like undo handlers,
  or in `oplog.settling.from_state` for split_transaction and `oplog.settling.lost_creations`
  for create_transactions);
- `undo_operation` rows are judged by `UndoSettler` (below): did the undo land?
- every other tool by `ItemsSettler`, from its undo handler's comparison item by item
  (`oplog.undo`): still as the operation left it = landed; as before = not landed;
  anything else = changed since, which YNAB cannot tell apart.

The rule (docs/confirmation.md#when-ynabs-answer-is-lost): all landed → `applied`; none landed → `failed`
(nothing of it is in YNAB); a mix → `applied` (in effect, so undo restores exactly what landed) with the log
saying which items landed and which did not; when YNAB's state cannot tell (items changed since, a
tool with nothing to compare), `unknown`, settled, with what the person can check. A settler
may also act (move_money puts back the half of a move that landed); it then returns
`final=False` while that is not done, and settling tries again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, runtime_checkable

from oplog.undo import UndoPlan, UndoRecord, handler_for, load_handlers

if TYPE_CHECKING:
    from oplog.models import Operation
    from ynab_client import PlanSnapshot, YnabClient

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


@runtime_checkable
class Settler(Protocol):
    """How one tool's unsettled operations are judged (and, if need be, finished)."""

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement: ...


_S = TypeVar("_S")
_settlers: dict[str, Settler] = {}
_lock = threading.Lock()


def settler(tool: str) -> Callable[[type[_S]], type[_S]]:
    """Register the decorated class (built with no arguments) as the settler of `tool`'s operations."""

    def register(cls: type[_S]) -> type[_S]:
        instance = cls()
        if not isinstance(instance, Settler):
            raise TypeError(f"{cls.__name__} needs async settle(client, snapshot, op).")
        with _lock:
            _settlers[tool] = instance
        return cls

    return register


def settler_for(op: Operation) -> Settler:
    """The settler of `op`: its tool's own, the undo's, or the one built on its undo handler."""
    load_handlers()  # imports every tool module, so their settlers are registered too
    import oplog.settling.from_state
    import oplog.settling.lost_creations  # noqa: F401 (late: both import the settlers below)

    if op.undo_of_id is not None:
        return UndoSettler()
    with _lock:
        own = _settlers.get(op.tool)
    return own if own is not None else ItemsSettler()


class ItemsSettler:
    """Any tool with an undo handler: its items compared with YNAB now (see the module docstring)."""

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        handler = handler_for(op.tool)
        if handler is None or op.undo_data is None:
            return cannot_tell(op)
        return judged(handler.plan(snapshot, op))


def judged(plan: UndoPlan) -> Settlement:
    """The rule of the module docstring, from an undo handler's comparison."""
    landed, not_landed, changed = plan.restored, plan.already_as_before, len(plan.conflicts)
    total = landed + not_landed + changed
    changed_text = "; ".join(f"{c.name} ({c.id}): {c.reason}" for c in plan.conflicts)
    if total == 0:
        return Settlement("unknown", f"{PREFIX} the operation holds no item to compare with YNAB.", "unsure")
    if landed == total:
        return Settlement(
            "applied", f"{PREFIX} all {total} item(s) are in YNAB as the operation left them.", "all"
        )
    if not_landed == total:
        return Settlement(
            "failed", f"{PREFIX} none of its {total} item(s) is in YNAB: nothing was changed.", "none"
        )
    if landed:
        said = f"{PREFIX} {landed} of {total} item(s) landed"
        if not_landed:
            said += f"; {not_landed} did not (as before)"
        if changed:
            said += f"; {changed} changed since, so YNAB cannot tell: {changed_text}"
        return Settlement(
            "applied", said + ". undo_operation restores only what landed (its preview names them).", "part"
        )
    return Settlement(
        "unknown",
        f"{PREFIX} YNAB cannot tell whether it landed: {changed} item(s) changed since ({changed_text})"
        + (f"; {not_landed} are as before" if not_landed else "")
        + ". Check them in YNAB; undo_operation never overwrites a change made since.",
        "unsure",
    )


def cannot_tell(op: Operation) -> Settlement:
    """A tool whose outcome YNAB's state cannot show (nothing recorded to compare with)."""
    return Settlement(
        "unknown",
        f"{PREFIX} nothing of {op.tool} can be compared with YNAB, so its outcome stays unknown. "
        f"{op.error or 'Check the plan in YNAB.'}".strip(),
        "unsure",
    )


class UndoSettler:
    """An undo whose outcome is not known: did its writes land? Judged by the original's handler.

    Nothing of the original left as it left it → the undo landed: `applied`, and the original
    becomes `undone` by it (`runner` does that). All of what the undo set out to restore still
    as the original left it → nothing landed: `failed` (the original stays in effect).
    Part of it → `applied` for that part; the original stays in effect for the rest.
    """

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        original = op.undo_of
        handler = handler_for(original.tool) if original is not None else None
        if original is None or handler is None or original.undo_data is None:
            return cannot_tell(op)
        plan = handler.plan(snapshot, original)
        restoring = UndoRecord.from_json(op.undo_data).restoring or 0
        if plan.nothing_to_restore:
            said = f"{PREFIX} the undo landed: nothing of {original.pk} is left as it set it."
            return Settlement("applied", said, "all")
        if restoring and plan.restored >= restoring:
            said = (
                f"{PREFIX} the undo did not land: the {plan.restored} item(s) it was to restore are still "
                f"as {original.pk} left them; undo_operation can try again."
            )
            return Settlement("failed", said, "none")
        said = (
            f"{PREFIX} the undo landed in part: {plan.restored} item(s) of {original.pk} are still as it "
            "left them; undo_operation restores them."
        )
        return Settlement("applied", said, "part")
