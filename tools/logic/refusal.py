"""`Refusal`: the logic layer's way of saying "not this change", in words the agent can act on.

Pure functions that check a requested change against a plan snapshot (what to recategorise,
approve, budget, ...) raise `Refusal` with a one-line message that says what to give instead,
e.g. `Transaction 't9' is split: ...`; so do the checks of what the agent gave (ids, months,
dates, amounts, texts). `avenir_site.mcp_answers.AvenirServer` turns it into the tool's error
result, in that one place, so the logic stays free of the MCP SDK.

Every refusal in `tools/` is a `Refusal`. The other kind of error is a failure of YNAB or the
network: `tools.ynab.YnabError`, which the plan lookup and the write flow put in words as the
SDK's `ToolError` (the write flow once it is logged).
"""

from __future__ import annotations


class Refusal(ValueError):
    """A requested change the plan does not allow; the message is one line for the agent."""


def not_in_plan(what: str, value: str, source: str) -> Refusal:
    """`No transaction 't9' in this plan; find_transactions gives the valid ids.` (the read tools' words)."""
    from tools.logic.text import quoted  # late: text's checks raise Refusal

    return Refusal(f"No {what} {quoted(value, 40)} in this plan; {source} gives the valid ids.")
