"""What a tool call answered: its structured content, or its one-line refusal."""

from __future__ import annotations

from mcp.types import CallToolResult


def ok(result: CallToolResult) -> dict:
    """The structured content of a successful call (fails the test with the error text)."""
    assert not result.is_error, result.content[0].text
    return result.structured_content


def refusal(result: CallToolResult) -> str:
    """The one-line message of a refused call: exactly the tool's sentence."""
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "\n" not in text, text
    return text
