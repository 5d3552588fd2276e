"""`Refusal`: the logic layer's way of saying "not this change", in words the agent can act on.

Pure functions that check a requested change against a plan snapshot (what to recategorise,
approve, budget, ...) raise `Refusal` with a one-line message that says what to give instead,
e.g. `Transaction 't9' is split: ...`. The write flow (`tools.writes.flow`) turns it into a
tool error before anything is asked or written, so the logic stays free of the MCP SDK.
"""

from __future__ import annotations

from tools.logic.text import quoted


class Refusal(ValueError):
    """A requested change the plan does not allow; the message is one line for the agent."""


def not_in_plan(what: str, value: str, source: str) -> Refusal:
    """`No transaction 't9' in this plan; find_transactions gives the valid ids.` (the read tools' words)."""
    return Refusal(f"No {what} {quoted(value, 40)} in this plan; {source} gives the valid ids.")
