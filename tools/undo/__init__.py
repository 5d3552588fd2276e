"""Undo: reversing a logged operation, only where YNAB is still as the operation left it.

- `registry`: the handler protocol every undoable tool implements next to its own code
  (`undo_handler`, `UndoPlan`, `Conflict`, `item_state`, `UndoItems`, `UndoPartlyApplied`,
  `handler_for`).
- `choose`: which operation (named, or the plan's latest in effect) and why one cannot be
  undone (`UndoRefused`).
- `words`: the undo's preview (the items to restore, then the conflicts by name) and messages.
- `change`: the undo as the write flow runs it (`UndoWrite`: build, apply) and the claim that
  lets one of two concurrent undos proceed.
- `tool`: the `undo_operation` MCP tool. `outside`: the admin's undo (propose, then run once
  the owner agreed), with the same code.

Handlers import from `tools.undo.registry` directly; this package imports nothing at import
time, so a tool module can register its handler without import cycles.
"""
