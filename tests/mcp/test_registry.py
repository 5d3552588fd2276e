"""Every tool carries explicit metadata, and the registry refuses a tool without it."""

from __future__ import annotations

import re
import types
from typing import Annotated

import anyio
import pytest
from mcp import Client
from mcp.types import ToolAnnotations
from pydantic import Field

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.registry import (
    TOOLSET_META_KEY,
    TOOLSETS,
    ToolSpec,
    metadata_problems,
    read_tool,
    register_tool,
    tool_specs_in,
    visible_tools,
)
from avenir_mcp.mcp_surface.server import build_server
from tests.mcp.sample_tools import SAMPLE_SPECS

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


async def listed_tools(specs) -> list[dict]:
    server = build_server(writes=True, local_principal=None, specs=specs)
    with anyio.fail_after(10):
        async with Client(server) as client:
            tools = (await client.list_tools()).tools
    return [tool.model_dump(by_alias=True, mode="json") for tool in tools]


def listing_problems(tool: dict) -> list[str]:
    problems = [f"no {field}" for field in ("title", "description", "outputSchema") if not tool.get(field)]
    annotations = tool.get("annotations") or {}
    problems += [f"no {hint}" for hint in HINTS if annotations.get(hint) is None]
    if (tool.get("_meta") or {}).get(TOOLSET_META_KEY) not in TOOLSETS:
        problems.append("no toolset")
    return problems


def test_every_catalog_tool_is_registered_with_complete_metadata():
    specs = catalog_specs()

    problems = {spec.name: metadata_problems(spec) for spec in specs}

    assert specs, "the catalog lists no tool"
    assert problems == {spec.name: [] for spec in specs}


@pytest.mark.anyio
@pytest.mark.parametrize("specs", [catalog_specs(), SAMPLE_SPECS], ids=["catalog", "sample"])
async def test_every_listed_tool_shows_title_hints_toolset_and_output_schema(specs):
    tools = await listed_tools(specs)

    problems = {tool["name"]: listing_problems(tool) for tool in tools}

    assert problems == {spec.name: [] for spec in specs}


def test_it_refuses_a_tool_without_a_title_or_with_an_unknown_toolset():
    async def list_widgets() -> dict:
        """List the widgets."""
        return {}

    with pytest.raises(ValueError, match="no title"):
        read_tool(title=" ", toolset="plans")(list_widgets)
    with pytest.raises(ValueError, match="toolset 'widgets'"):
        read_tool(title="List widgets", toolset="widgets")(list_widgets)


def test_it_refuses_a_tool_without_a_docstring_or_that_is_not_async():
    async def undocumented() -> dict:
        return {}

    def blocking() -> dict:
        """Blocks the event loop."""
        return {}

    with pytest.raises(ValueError, match="no docstring"):
        register_tool(
            undocumented,
            title="Undocumented",
            toolset="plans",
            read_only=False,
            destructive=False,
            idempotent=True,
        )
    with pytest.raises(ValueError, match="not an async function"):
        read_tool(title="Blocking", toolset="plans")(blocking)


def test_it_refuses_a_tool_with_an_argument_it_does_not_describe():
    """A refused argument is answered with its own description (`argument_sentence`): each has one."""

    async def rename_widget(
        widget_id: Annotated[str, Field(description="The widget to rename.")], name: str, size: int = 1
    ) -> dict:
        """Rename a widget."""
        return {}

    refused = "Tool rename_widget: no description for argument(s) name, size (Field(description=...))."
    with pytest.raises(ValueError, match=f"^{re.escape(refused)}$"):
        register_tool(
            rename_widget,
            title="Rename widget",
            toolset="plans",
            read_only=False,
            destructive=False,
            idempotent=True,
        )


def test_a_tool_whose_read_only_hint_is_unset_counts_as_a_write_and_is_reported():
    async def mystery() -> dict:
        """Does something."""
        return {}

    spec = ToolSpec(
        fn=mystery, name="mystery", title="Mystery", toolset="plans", annotations=ToolAnnotations()
    )

    assert visible_tools([spec], writes=False) == []
    assert visible_tools([spec], writes=True) == [spec]
    assert "annotation read_only_hint is not set" in metadata_problems(spec)


def test_a_read_only_tool_marked_destructive_is_reported():
    async def look() -> dict:
        """Looks, and says it destroys."""
        return {}

    hints = ToolAnnotations(
        read_only_hint=True, destructive_hint=True, idempotent_hint=True, open_world_hint=True
    )
    spec = ToolSpec(fn=look, name="look", title="Look", toolset="plans", annotations=hints)

    assert metadata_problems(spec) == ["a read-only tool cannot be destructive"]


def test_two_tools_cannot_share_a_name():
    first, second = types.ModuleType("first_tools"), types.ModuleType("second_tools")
    for module in (first, second):

        async def list_widgets() -> dict:
            """List the widgets."""
            return {}

        list_widgets.__module__ = module.__name__
        module.list_widgets = read_tool(title="List widgets", toolset="plans")(list_widgets)

    with pytest.raises(ValueError, match="Two tools are named list_widgets"):
        tool_specs_in([first, second])
