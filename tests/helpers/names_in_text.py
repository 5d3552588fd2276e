"""What a text for the caller (the guide, a prompt) may name in code spans: only tools it can
see and their fields, never a tool hidden from it."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from avenir_mcp.mcp_surface.registry import ToolSpec, hidden_tool_names
from avenir_mcp.values.toolsets import ALL_TOOLSETS

CODE_SPAN = re.compile(r"`([^`]+)`")
SNAKE_CASE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def schema_fields(schema: object) -> Iterator[str]:
    """Every property name anywhere in a JSON schema."""
    if isinstance(schema, dict):
        yield from (schema.get("properties") or {}).keys()
        for value in schema.values():
            yield from schema_fields(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from schema_fields(value)


def names_out_of_sight(
    text: str,
    tools: Sequence[dict],
    specs: Sequence[ToolSpec],
    *,
    writes: bool,
    toolsets: frozenset[str] = ALL_TOOLSETS,
) -> set[str]:
    """Code identifiers that are no visible tool or field, and hidden tools named anywhere
    (hidden from a caller with or without `writes`, offered `toolsets`)."""
    known = {tool["name"] for tool in tools}
    for tool in tools:
        known |= set(schema_fields(tool["inputSchema"])) | set(schema_fields(tool.get("outputSchema")))
    in_code = {name for span in CODE_SPAN.findall(text) for name in SNAKE_CASE.findall(span)}
    hidden = {
        name
        for name in hidden_tool_names(specs, writes=writes, toolsets=toolsets)
        if re.search(rf"\b{name}\b", text)
    }
    return (in_code - known) | hidden
