"""Reading a tool's answer as a client that sees only its text content does.

Every result's text is the one-line summary, then the structured content as compact JSON
(docs/conventions.md#results); every refusal is exactly its sentence.
"""

from __future__ import annotations

import json

from mcp.types import CallToolResult


def summary(result: CallToolResult) -> str:
    """The summary line of a successful result; checks that the JSON line after it is exactly the
    structured content, compact."""
    assert not result.is_error, result.content[0].text
    (block,) = result.content
    line, data = block.text.split("\n")
    assert json.loads(data) == result.structured_content
    assert data == json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    return line
