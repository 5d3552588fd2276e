"""A test-only tool module: one read tool and one real-looking write tool.

The catalog may not hold a write tool yet; these prove the write gate, request state and
principals through the very code path the catalog's tools take (`read_tool` / `register_tool`,
`tool_specs_in`, `build_server`).
"""

from __future__ import annotations

import sys
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from pydantic import BaseModel, Field

from avenir_mcp.mcp_surface.registry import read_tool, register_tool, tool_specs_in
from avenir_mcp.tokens.auth import principal_of

CONFIRM_SCHEMA = {
    "type": "object",
    "properties": {"value": {"type": "boolean", "title": "Apply this change?"}},
    "required": ["value"],
}


class Caller(BaseModel):
    principal: str
    read_only: bool


class Relabel(BaseModel):
    status: Literal["applied", "declined"]
    label_id: str
    name: str


@read_tool(title="Describe the caller", toolset="plans")
async def describe_caller(ctx: Context) -> Caller:
    """Who is calling: the principal key and whether it is read-only."""
    principal = principal_of(ctx)
    return Caller(principal=principal.key, read_only=principal.read_only)


async def rename_label(
    label_id: Annotated[str, Field(description="The label to rename.")],
    name: Annotated[str, Field(description="Its new name.")],
    ctx: Context,
) -> Relabel | InputRequiredResult:
    """Rename a label once the person agrees (asks with an input-required round trip)."""
    if ctx.request_state is None:
        question = ElicitRequest(
            params=ElicitRequestFormParams(
                message=f"Rename label {label_id} to {name}?", requested_schema=CONFIRM_SCHEMA
            )
        )
        return InputRequiredResult(input_requests={"confirm": question}, request_state=f"{label_id}={name}")
    answer = (ctx.input_responses or {}).get("confirm")
    agreed = answer is not None and answer.action == "accept" and bool((answer.content or {}).get("value"))
    return Relabel(status="applied" if agreed else "declined", label_id=label_id, name=name)


register_tool(
    rename_label, title="Rename a label", toolset="payees", read_only=False, destructive=True, idempotent=True
)


SAMPLE_SPECS = tool_specs_in([sys.modules[__name__]])

SAMPLE_GUIDE = """# Sample guide

Start with `describe_caller`; it returns `principal` and `read_only`.
<!-- writes -->
Rename with `rename_label`, giving `label_id` and `name`.
<!-- /writes -->
<!-- no-writes -->
Changes are made in YNAB itself.
<!-- /no-writes -->
"""
