"""The guide each caller reads names only tools that exist and that this caller can see."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.registry import hidden_tool_names
from avenir_mcp.mcp_surface.resources import GUIDE_URI, GuideMarkupError, render_guide
from avenir_mcp.mcp_surface.server import build_server
from tests.helpers.mcp_http import instructions_of
from tests.helpers.names_in_text import names_out_of_sight
from tests.mcp.sample_tools import SAMPLE_GUIDE, SAMPLE_SPECS


async def what_the_caller_reads(specs, guide_markdown, *, writes: bool) -> tuple[str, str, list[dict]]:
    server = build_server(writes=writes, local_principal=None, specs=specs, guide_markdown=guide_markdown)
    with anyio.fail_after(10):
        async with Client(server, mode="legacy") as client:
            instructions = await instructions_of(client)
            resource = (await client.read_resource(GUIDE_URI)).contents[0].text
            tools = [
                tool.model_dump(by_alias=True, mode="json") for tool in (await client.list_tools()).tools
            ]
    return instructions, resource, tools


@pytest.mark.anyio
@pytest.mark.parametrize("writes", [False, True], ids=["read-only", "read-write"])
async def test_the_guide_names_only_tools_and_fields_the_caller_can_see(writes):
    specs = catalog_specs()

    instructions, resource, tools = await what_the_caller_reads(specs, None, writes=writes)

    assert instructions == resource
    assert names_out_of_sight(resource, tools, specs, writes=writes) == set()


@pytest.mark.anyio
async def test_a_caller_without_writes_reads_no_write_section_and_no_write_tool():
    instructions, resource, tools = await what_the_caller_reads(SAMPLE_SPECS, SAMPLE_GUIDE, writes=False)

    assert "rename_label" not in resource
    assert "Changes are made in YNAB itself." in resource
    assert instructions == resource
    assert names_out_of_sight(resource, tools, SAMPLE_SPECS, writes=False) == set()


@pytest.mark.anyio
async def test_a_caller_with_writes_reads_the_write_section_and_not_the_read_only_one():
    _instructions, resource, tools = await what_the_caller_reads(SAMPLE_SPECS, SAMPLE_GUIDE, writes=True)

    assert "Rename with `rename_label`" in resource
    assert "YNAB itself" not in resource
    assert names_out_of_sight(resource, tools, SAMPLE_SPECS, writes=True) == set()


@pytest.mark.anyio
async def test_the_check_catches_a_guide_naming_a_missing_or_hidden_tool():
    guide = SAMPLE_GUIDE + "\nThen call `list_widgets`; rename_label also helps.\n"

    _instructions, resource, tools = await what_the_caller_reads(SAMPLE_SPECS, guide, writes=False)

    assert names_out_of_sight(resource, tools, SAMPLE_SPECS, writes=False) == {"list_widgets", "rename_label"}


@pytest.mark.anyio
@pytest.mark.parametrize("specs", [catalog_specs(), SAMPLE_SPECS], ids=["catalog", "sample"])
async def test_no_tool_a_read_only_caller_sees_names_a_write_tool(specs):
    _instructions, _resource, tools = await what_the_caller_reads(specs, None, writes=False)
    hidden = hidden_tool_names(specs, writes=False)

    mentions = {tool["name"]: sorted(name for name in hidden if name in str(tool)) for tool in tools}

    assert mentions == {tool["name"]: [] for tool in tools}


TOOL_SECTIONS = (
    "\n<!-- with rename_label -->Tidy with `rename_label`.<!-- /with -->"
    "<!-- without rename_label -->Tidy in YNAB itself.<!-- /without -->"
    "<!-- with describe_caller list_widgets -->Count with `list_widgets`.<!-- /with -->\n"
)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("writes", "kept", "left_out"),
    [
        (True, "Tidy with `rename_label`.", "Tidy in YNAB itself."),
        (False, "Tidy in YNAB itself.", "Tidy with `rename_label`."),
    ],
    ids=["read-write", "read-only"],
)
async def test_a_tools_sentences_appear_exactly_when_the_caller_sees_the_tool(writes, kept, left_out):
    _instructions, resource, tools = await what_the_caller_reads(
        SAMPLE_SPECS, SAMPLE_GUIDE + TOOL_SECTIONS, writes=writes
    )

    assert kept in resource
    assert left_out not in resource
    assert "list_widgets" not in resource
    assert names_out_of_sight(resource, tools, SAMPLE_SPECS, writes=writes) == set()


def test_tool_sections_nest_inside_write_sections():
    markdown = "<!-- writes -->Write<!-- with a --> with a<!-- /with -->.<!-- /writes -->"

    assert render_guide(markdown, writes=True, tools={"a"}) == "Write with a.\n"
    assert render_guide(markdown, writes=True) == "Write.\n"
    assert render_guide(markdown, writes=False, tools={"a"}) == "\n"


def test_a_marker_names_tools_or_toolsets_and_with_any_needs_one_of_them():
    markdown = (
        "<!-- with-any a insights -->Either.<!-- /with-any -->"
        "<!-- with a insights -->Both.<!-- /with -->"
        "<!-- without insights -->No insights.<!-- /without -->"
    )

    assert render_guide(markdown, writes=False, tools={"a"}, toolsets={"insights"}) == "Either.Both.\n"
    assert render_guide(markdown, writes=False, toolsets={"insights"}) == "Either.\n"
    assert render_guide(markdown, writes=False, tools={"a"}) == "Either.No insights.\n"
    assert render_guide(markdown, writes=False) == "No insights.\n"


@pytest.mark.parametrize(
    "markdown",
    [
        "<!-- writes -->never closed",
        "<!-- /writes -->",
        "<!-- writes --><!-- no-writes --><!-- /no-writes -->",
        "<!-- writes --><!-- with a --><!-- no-writes --><!-- /no-writes --><!-- /with --><!-- /writes -->",
        "<!-- with -->names no tool<!-- /with -->",
        "<!-- with-any -->names no tool<!-- /with-any -->",
        "<!-- with a -->closed by the other kind<!-- /without -->",
        "<!-- writes a -->a write section naming a tool<!-- /writes -->",
    ],
)
def test_a_guide_with_unpaired_section_markers_is_refused(markdown):
    with pytest.raises(GuideMarkupError):
        render_guide(markdown, writes=True)
