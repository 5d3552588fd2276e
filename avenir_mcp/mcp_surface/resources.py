"""MCP resources, and the guide for agents as each caller sees it.

The guide (`avenir_mcp/mcp_surface/guide.md`) is served twice from one text: as the server's instructions and
as the resource `avenir-mcp://guide`. Parts about changing the plan sit between
`<!-- writes -->` and `<!-- /writes -->`; parts meant only for callers who cannot change it,
between `<!-- no-writes -->` and `<!-- /no-writes -->`. A part naming tools that may not be
there sits between `<!-- with tool_a tool_b -->` and `<!-- /with -->` (kept when the caller
sees every tool named), its alternative between `<!-- without tool_a -->` and
`<!-- /without -->` (kept when one is missing); a part that needs any one of several, between
`<!-- with-any tool_a tool_b -->` and `<!-- /with-any -->`. A name in these markers is a tool
or a toolset (docs/conventions.md#toolsets: seen when the caller is offered it).
`render_guide` keeps the parts that fit the caller, so a caller never reads about a tool it
cannot call, and a tool's sentences appear as soon as the tool is in the catalog. Sections
nest, except writes / no-writes in each other.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources import TextResource

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.plan_resources import register_plan_resources
from avenir_mcp.mcp_surface.registry import visible_tools
from avenir_mcp.values.toolsets import ALL_TOOLSETS

GUIDE_URI = "avenir-mcp://guide"
GUIDE_PATH = Path(__file__).with_name("guide.md")

_MARKER = re.compile(r"<!--\s*(/?)(writes|no-writes|with-any|without|with)((?:\s+[a-z][a-z0-9_]*)*)\s*-->")
_BLANK_RUNS = re.compile(r"\n{3,}")
_WRITE_SECTIONS = ("writes", "no-writes")


class GuideMarkupError(ValueError):
    """The guide's section markers do not pair up."""


@dataclass(frozen=True)
class _Section:
    kind: str
    kept: bool


def render_guide(
    markdown: str,
    *,
    writes: bool,
    tools: Collection[str] = frozenset(),
    toolsets: Collection[str] = frozenset(),
) -> str:
    """The guide for a caller who can (`writes=True`) or cannot change the plan, and sees `tools`
    of `toolsets`."""
    seen = frozenset(tools) | frozenset(toolsets)
    out: list[str] = []
    open_sections: list[_Section] = []
    position = 0
    for marker in _MARKER.finditer(markdown):
        if all(section.kept for section in open_sections):
            out.append(markdown[position : marker.start()])
        position = marker.end()
        closing, kind, names = bool(marker[1]), marker[2], marker[3].split()
        if closing:
            _close(open_sections, kind)
        else:
            open_sections.append(_opened(open_sections, kind, names, writes=writes, seen=seen))
    if open_sections:
        raise GuideMarkupError(f"The guide's <!-- {open_sections[-1].kind} --> section is never closed.")
    out.append(markdown[position:])
    return _BLANK_RUNS.sub("\n\n", "".join(out)).strip() + "\n"


def _opened(
    open_sections: list[_Section], kind: str, names: list[str], *, writes: bool, seen: frozenset[str]
) -> _Section:
    if kind in _WRITE_SECTIONS:
        inside = next((s.kind for s in open_sections if s.kind in _WRITE_SECTIONS), None)
        if inside is not None:
            raise GuideMarkupError(f"<!-- {kind} --> opens inside the <!-- {inside} --> section.")
        if names:
            raise GuideMarkupError(f"<!-- {kind} --> takes no tool names.")
        return _Section(kind, writes if kind == "writes" else not writes)
    if not names:
        raise GuideMarkupError(f"<!-- {kind} --> names no tool.")
    if kind == "with-any":
        return _Section(kind, any(name in seen for name in names))
    visible = all(name in seen for name in names)
    return _Section(kind, visible if kind == "with" else not visible)


def _close(open_sections: list[_Section], kind: str) -> None:
    if not open_sections or open_sections[-1].kind != kind:
        raise GuideMarkupError(f"<!-- /{kind} --> closes a section that is not open.")
    open_sections.pop()


@functools.cache
def guide_text(
    *, writes: bool, toolsets: frozenset[str] = ALL_TOOLSETS, tools: Collection[str] | None = None
) -> str:
    """`avenir_mcp/mcp_surface/guide.md` rendered for such a caller, offered `toolsets`; `tools` defaults
    to the catalog's tools that caller sees."""
    if tools is None:
        visible = visible_tools(catalog_specs(), writes=writes, toolsets=toolsets)
        tools = frozenset(spec.name for spec in visible)
    return render_guide(GUIDE_PATH.read_text(encoding="utf-8"), writes=writes, tools=tools, toolsets=toolsets)


def register_resources(server: MCPServer, *, guide: str) -> None:
    """Add the resources every caller sees to `server`.

    `guide` is the guide already rendered for the callers this server serves.
    """
    server.add_resource(
        TextResource(
            uri=GUIDE_URI,
            name="guide",
            title="Guide for agents",
            description="How to work with avenir-mcp: conventions, what is data, how changes are agreed.",
            mime_type="text/markdown",
            text=guide,
        )
    )
    register_plan_resources(server)
