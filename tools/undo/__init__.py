"""Undo: reversing a logged operation, only where YNAB is still as the operation left it.

- `tools.undo.registry`: the handler protocol every undoable tool implements next to its
  own code (`undo_handler`, `UndoPlan`, `Conflict`, `item_state`, `handler_for`).

Handlers import from `tools.undo.registry` directly; this package imports nothing else at
import time, so a tool module can register its handler without import cycles.
"""
