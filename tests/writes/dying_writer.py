"""A service process making one write, to be killed mid-way by the fault matrix (`kill -9`).

    python -m tests.writes.dying_writer TOOL ARGUMENTS_JSON

Run with the test run's DATABASE_URL and AVENIR_MCP_YNAB_URL (the live sandbox): it makes the
write as an agent whose client cannot ask (a code, then the same call with it), through the
catalog's real server in memory, and prints the result; the test kills it before that.
"""

from __future__ import annotations

import json
import os
import sys

import anyio
import django


async def write(tool: str, arguments: dict) -> str:
    from mcp import Client

    from avenir_site.mcp_server import build_server
    from tools.auth import Principal

    server = build_server(writes=True, local_principal=Principal.local("dying writer"))
    async with Client(server, mode="2026-07-28") as client:
        first = await client.call_tool(tool, arguments)
        code = (first.structured_content or {}).get("confirmation")
        result = await client.call_tool(tool, {**arguments, "confirmation": code} if code else arguments)
    return result.content[0].text


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_site.settings")
    django.setup()
    tool, arguments = sys.argv[1], json.loads(sys.argv[2])
    print(anyio.run(write, tool, arguments), flush=True)


if __name__ == "__main__":
    main()
