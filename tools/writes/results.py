"""`WriteResult`: the fields every write tool returns first (docs/conventions.md#results).

Each write tool's result model extends it with the tool's own fields, and the tool is
annotated `-> Annotated[CallToolResult, ItsResult] | InputRequiredResult`, so the output
schema published to the agent is the tool's model and the first round of a 2026-07-28
confirmation passes through as is. `tools.writes.flow` fills these fields in (`write_answer`);
a tool only builds its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from tools.presenting import tool_result

WriteStatus = Literal["applied", "declined", "confirmation_required", "nothing_to_do"]

STATUS_DESCRIPTION = (
    "applied: the change is in YNAB (operation_id names it); declined: the person said no, nothing "
    "changed; confirmation_required: nothing changed yet, show the preview to the person and call "
    "again with confirmation only if they agree; nothing_to_do: nothing would change, nothing was asked."
)


class WriteResult(BaseModel):
    """What every write returns besides its own fields."""

    plan_id: str = Field(description="The plan's real id (also when asked for last-used or the default).")
    status: WriteStatus = Field(description=STATUS_DESCRIPTION)
    message: str = Field(
        description="One sentence for the person: what happened, and when applied the operation id and "
        "how to undo it (or why it cannot be undone)."
    )
    operation_id: str | None = Field(
        description="The operation log entry of the change (list_operations, undo_operation); null when "
        "nothing was written."
    )
    preview: str | None = Field(
        description="What the person is asked, or agreed, to change: a question, then one line per item. "
        "Set when confirmation_required or applied (confirmed tools only)."
    )
    confirmation: str | None = Field(
        description="Only when confirmation_required: the single-use code to pass as confirmation, with "
        "the same arguments, once the person has seen the preview and agreed (valid 10 minutes)."
    )


def write_tool_result(result: WriteResult) -> CallToolResult:
    """The `CallToolResult` of a write: the message as its summary, the fields structured.

    The client gets the message followed by every field as JSON (`tools.presenting.readable`),
    the preview and the code included: a client that hands the model only the text still
    gives it the preview to show the person.
    """
    return tool_result(result, result.message)


def write_answer(
    result: type[WriteResult],
    plan_id: str,
    fields: Mapping[str, Any],
    *,
    status: str,
    message: str,
    operation_id: str | None = None,
    preview: str | None = None,
    confirmation: str | None = None,
) -> CallToolResult:
    """The tool's answer: its result model with the common fields and its own `fields`."""
    answer = result(
        plan_id=plan_id,
        status=status,
        message=message,
        operation_id=operation_id,
        preview=preview,
        confirmation=confirmation,
        **fields,
    )
    return write_tool_result(answer)
