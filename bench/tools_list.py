"""Size of `tools/list` for each choice of toolsets (docs/conventions.md#toolsets), writes on and off.

    .venv/bin/python bench/tools_list.py

Builds the servers /mcp builds (`mcp_surface.server.build_server`, the catalog's tools) for:
every toolset ("all"), the ones `AVENIR_MCP_TOOLSETS` offers here ("default"), the smallest
set a caller can be given ("smallest": plans and operations), and each other toolset with
those two. Each is asked `tools/list` by the SDK's client in memory, and the answer's JSON, as
it travels (compact, UTF-8), is measured. One figure a line, `name: value unit`:

- tools_list_<set>_<writes|reads>_bytes: the size of the answer;
- tools_list_<set>_<writes|reads>_tokens: an estimate of what it costs the model, bytes / 4
  (the usual rule of thumb for English text and JSON; a model's own tokenizer differs by a few
  per cent either way);
- tools_list_<set>_<writes|reads>_tools: how many tools it lists.

No database, YNAB or network is used: listing tools reads nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/ would shadow the `sandbox` app
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_mcp.avenir_site.settings")

import django  # noqa: E402 (needs the path above)

django.setup()

from django.conf import settings  # noqa: E402
from mcp import Client  # noqa: E402

from avenir_mcp.mcp_surface.server import build_server  # noqa: E402
from avenir_mcp.values.toolsets import ALL_TOOLSETS, ALWAYS_OFFERED, TOOLSETS, toolsets_text  # noqa: E402

BYTES_PER_TOKEN = 4


def main() -> None:
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    asyncio.run(_measure())


def choices() -> list[tuple[str, frozenset[str]]]:
    default = frozenset(settings.AVENIR_MCP_TOOLSETS)
    alone = [(name, frozenset({name}) | ALWAYS_OFFERED) for name in TOOLSETS if name not in ALWAYS_OFFERED]
    return [("all", ALL_TOOLSETS), ("default", default), ("smallest", ALWAYS_OFFERED), *alone]


async def _measure() -> None:
    print(f"# default = AVENIR_MCP_TOOLSETS here: {toolsets_text(settings.AVENIR_MCP_TOOLSETS)}")
    print(f"# tokens: an estimate, bytes / {BYTES_PER_TOKEN}")
    made: dict = {}
    for name, toolsets in choices():
        for writes in (True, False):
            server = build_server(writes=writes, toolsets=toolsets, local_principal=None, made=made)
            async with Client(server, mode="legacy") as client:
                answer = await client.session.list_tools()
            wire = json.dumps(
                answer.model_dump(by_alias=True, mode="json", exclude_none=True),
                separators=(",", ":"),
                ensure_ascii=False,
            ).encode()
            label = f"tools_list_{name}_{'writes' if writes else 'reads'}"
            print(f"{label}_bytes: {len(wire)} bytes")
            print(f"{label}_tokens: {len(wire) // BYTES_PER_TOKEN} tokens")
            print(f"{label}_tools: {len(answer.tools)} tools")


if __name__ == "__main__":
    main()
