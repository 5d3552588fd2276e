"""MCP resources, and the guide for agents as each caller sees it.

The guide (`tools/guide.md`) is served twice from one text: as the server's instructions and
as the resource `avenir-mcp://guide`. Parts about changing the plan sit between
`<!-- writes -->` and `<!-- /writes -->`; parts meant only for callers who cannot change it,
between `<!-- no-writes -->` and `<!-- /no-writes -->`. `render_guide` keeps the part that
fits the caller, so a caller without write tools never reads about them.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources import TextResource

from tools.reads.resources import register_plan_resources

GUIDE_URI = "avenir-mcp://guide"
GUIDE_PATH = Path(__file__).with_name("guide.md")

_MARKER = re.compile(r"<!--\s*(/?)(writes|no-writes)\s*-->")
_BLANK_RUNS = re.compile(r"\n{3,}")


class GuideMarkupError(ValueError):
    """The guide's section markers do not pair up."""


def render_guide(markdown: str, *, writes: bool) -> str:
    """The guide for a caller who can (`writes=True`) or cannot change the plan."""
    keep = {"writes": writes, "no-writes": not writes}
    out: list[str] = []
    open_section: str | None = None
    position = 0
    for marker in _MARKER.finditer(markdown):
        if open_section is None or keep[open_section]:
            out.append(markdown[position : marker.start()])
        position = marker.end()
        open_section = _next_section(open_section, closing=bool(marker[1]), name=marker[2])
    if open_section is not None:
        raise GuideMarkupError(f"The guide's <!-- {open_section} --> section is never closed.")
    out.append(markdown[position:])
    return _BLANK_RUNS.sub("\n\n", "".join(out)).strip() + "\n"


def _next_section(current: str | None, *, closing: bool, name: str) -> str | None:
    if closing:
        if current != name:
            raise GuideMarkupError(f"<!-- /{name} --> closes a section that is not open.")
        return None
    if current is not None:
        raise GuideMarkupError(f"<!-- {name} --> opens inside the <!-- {current} --> section.")
    return name


@functools.cache
def guide_text(*, writes: bool) -> str:
    """`tools/guide.md` rendered for such a caller (read once per process)."""
    return render_guide(GUIDE_PATH.read_text(encoding="utf-8"), writes=writes)


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
