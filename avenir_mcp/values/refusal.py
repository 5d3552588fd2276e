"""`Refusal`: the logic layer's way of saying "not this change", in words the agent can act on.

Pure functions that check a requested change against a plan snapshot (what to recategorise,
approve, budget, ...) raise `Refusal` with a one-line message that says what to give instead,
e.g. `Transaction 't9' is split: ...`; so do the checks of what the agent gave (ids, months,
dates, amounts, texts). `mcp_surface.answers.AvenirServer` turns it into the tool's error
result, in that one place, so the logic stays free of the MCP SDK.

A function named `*_refusal` builds one and returns it (`Refusal`, or `Refusal | None` when
the check may pass) for its caller to raise: `if (refusal := move_refusal(...)) is not None:
raise refusal`. What is not a `Refusal` is named for what it is: an OAuth error's description
(`metadata_problem`), an HTTP answer (`refused_host_answer`).

Every refusal in `avenir_mcp/tools/` is a `Refusal`. The other kind of error is a failure of YNAB or the
network: `ynab_client.YnabError`, which the plan lookup and the write flow put in words as the
SDK's `ToolError` (the write flow once it is logged).
"""

from __future__ import annotations


class Refusal(ValueError):
    """A requested change the plan does not allow; the message is one line for the agent."""
