"""Undo: reversing a logged operation, only where YNAB is still as the operation left it.

- `handlers`: the handler protocol every undoable tool implements next to its own code
  (`undo_handler`, `UndoPlan`, `Conflict`, `item_state`, `UndoItems`, `handler_for`), and what
  an undo says (its preview, its "nothing to undo" message).
- `undo_operation`: the MCP tool; which operation it undoes and why one cannot be undone (a
  `Refusal`); the undo as the write flow runs it (`UndoWrite`) and the claim that lets one of
  two concurrent undos proceed.
- `admin`: the admin's Undo (propose, then run once the owner agreed), with the same code.

Handlers import from `tools.undo.handlers` directly; this package imports nothing at import
time, so a tool module can register its handler without import cycles.
"""
