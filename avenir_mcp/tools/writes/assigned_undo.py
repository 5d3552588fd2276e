"""Undoing set_category_budget and move_money (docs/undo.md): what their undos decide and write.

Both tools log `{"month", "categories": [{"category_id", "before", "after"}, ...]}` (a move:
source first). Each category is compared with the plan now (`tools.logic.assigned`):

- set_category_budget: still as set → put back with one PATCH; back at its amount before →
  already as before; anything else → a conflict, nothing written.
- move_money: both categories stand together. Both still as left → both put back,
  destination first, with the move's own two-write rollback (`assigned_pair.write_pair`);
  one as left and the other already as before (half a move landed) → that one alone, one
  PATCH; either changed since (or deleted) → both left as they are, reported by name.

Each tool's object (`reversal`, `undo`) calls these with the operation's `AssignedUndo`.
"""

from __future__ import annotations

from datetime import date

from avenir_mcp.oplog.undo import Conflict, Reversal, UndoRecord
from avenir_mcp.tools.logic.assigned import AssignedNow, AssignedWords, assignments_now, standing_together
from avenir_mcp.tools.logic.available import AvailableShift, overspent_note
from avenir_mcp.tools.writes.assigned_pair import AssignedUndo, Pair, Step, write_pair
from avenir_mcp.values.money import shown_amount
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient


def budget_reversal(snapshot: PlanSnapshot, logged: AssignedUndo) -> Reversal[Step]:
    """`Undo: budget Restaurants for 2026-09-01: 150.00 → 120.00?`, restorable only while still as set."""
    month = logged.month
    (now,) = assignments_now(snapshot, month, logged.categories)
    words = AssignedWords.of(snapshot)
    name = words.name(now.category, now.logged.category_id)
    question = words.budget_question(name, month, now.logged.after, now.logged.before, undo=True)
    if now.state == "restore":
        return Reversal(
            question=question,
            restorable=(_back(now, name),),
            lines=(_undo_line(words, now, name),),
            notes=_overspent(words, month, [now]),
        )
    if now.state == "already_as_before":
        return Reversal(question=question, already_as_before=1)
    return Reversal(question=question, conflicts=(changed_since(words, now, name),))


def move_reversal(snapshot: PlanSnapshot, logged: AssignedUndo) -> Reversal[Step]:
    """`Undo: move 30.00 from Restaurants to Tennis for 2026-09-01?` + one line per category."""
    month = logged.month
    items = standing_together(assignments_now(snapshot, month, logged.categories))
    words = AssignedWords.of(snapshot)
    names = [words.name(item.category, item.logged.category_id) for item in items]
    # Undo writes the destination first: the reverse of the move's order.
    restorable = [(item, name) for item, name in reversed(list(zip(items, names, strict=True)))]
    restorable = [(item, name) for item, name in restorable if item.state == "restore"]
    return Reversal(
        question=_move_undo_question(words, month, items, names, restorable),
        restorable=tuple(_back(item, name) for item, name in restorable),
        lines=tuple(_undo_line(words, item, name) for item, name in restorable),
        already_as_before=sum(item.state == "already_as_before" for item in items),
        conflicts=_move_conflicts(words, items, names),
        notes=_overspent(words, month, [item for item, _name in restorable]),
    )


async def put_back(
    client: YnabClient, snapshot: PlanSnapshot, month: date, reversal: Reversal[Step], *, check_hint: str
) -> UndoRecord:
    """The undo's writes: one PATCH per restorable category, or a move's pair with its rollback.

    Returns the undo row's undo data. Failures as the undo framework expects: `YnabError`
    (nothing changed), `UnknownOutcome` (an answer lost), `WriteFailed` (half of a pair
    in YNAB and putting it back failed too: the message says what to set by hand).
    """
    steps = list(reversal.restorable)
    if len(steps) == 2:
        pair = Pair(
            snapshot.plan_id,
            month,
            steps[0],
            steps[1],
            snapshot.settings.currency_format,
            check_hint,
            logged=AssignedUndo(month=month),
        )
        await write_pair(client, pair)
    else:
        for step in steps:
            await client.patch_month_category(
                snapshot.plan_id, month, step.category_id, step.after, check_hint=check_hint
            )
    restored = tuple({"category_id": step.category_id, "assigned": step.after} for step in steps)
    return UndoRecord(month=month.isoformat(), restored=restored)


def changed_since(words: AssignedWords, now: AssignedNow, name: str) -> Conflict:
    """A category the operation set that changed since: by name, with what it holds now."""
    if now.category is None or now.assigned is None:
        return Conflict(now.logged.category_id, name, "it was deleted")
    reason = (
        f"its assigned amount is now {shown_amount(words.currency, now.assigned)}, "
        f"not the {shown_amount(words.currency, now.logged.after)} the operation set"
    )
    return Conflict(now.logged.category_id, name, reason)


def _back(item: AssignedNow, name: str) -> Step:
    """A restorable category as the write that puts it back: from the amount left to the one before."""
    return Step(item.logged.category_id, name, before=item.logged.after, after=item.logged.before)


def _move_undo_question(
    words: AssignedWords,
    month: date,
    items: tuple[AssignedNow, ...],
    names: list[str],
    restorable: list[tuple[AssignedNow, str]],
) -> str:
    """Both back: the move reversed; one back (the other already as before): its budget."""
    if len(restorable) == 1:
        ((item, name),) = restorable
        return words.budget_question(name, month, item.logged.after, item.logged.before, undo=True)
    source = items[0].logged
    return words.move_question(source.before - source.after, names[1], names[0], month, undo=True)


def _undo_line(words: AssignedWords, item: AssignedNow, name: str) -> str:
    """`Tennis: assigned 50.00 → 80.00; available 2.00 → 32.00`: put back, as the undo sets it."""
    logged, available = item.logged, item.available or 0
    return words.assigned_line(name, logged.after, logged.before, available, _available_back(item))


def _available_back(item: AssignedNow) -> int:
    """The category's available amount once its assigned amount is put back (by as much)."""
    return (item.available or 0) + item.logged.before - item.logged.after


def _overspent(words: AssignedWords, month: date, restorable: list[AssignedNow]) -> tuple[str, ...]:
    """The note naming each category that putting back leaves overspent, or none."""
    shifts = [
        AvailableShift(item.category, month, item.available or 0, _available_back(item))
        for item in restorable
        if item.category is not None
    ]
    note = overspent_note(words.currency, shifts)
    return (note,) if note else ()


def _move_conflicts(
    words: AssignedWords, items: tuple[AssignedNow, ...], names: list[str]
) -> tuple[Conflict, ...]:
    """Each category left as it is: the one that changed, with what it holds; its partner, why."""
    conflicts = []
    for index, (item, name) in enumerate(zip(items, names, strict=True)):
        if item.state != "conflict":
            continue
        if item.assigned not in (item.logged.before, item.logged.after):
            conflicts.append(changed_since(words, item, name))
        else:
            reason = f"left as it is with {names[1 - index]}: the two are put back together or not at all"
            conflicts.append(Conflict(item.logged.category_id, name, reason))
    return tuple(conflicts)
