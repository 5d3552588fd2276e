"""A service process making one write, stopping between two of its requests to be killed (`kill -9`).

    python -m tests.writes.dying_writer TOOL ARGUMENTS_JSON STOP_BEFORE

Run with the test run's DATABASE_URL and AVENIR_MCP_YNAB_URL (the live sandbox): it makes the
write as an agent whose client cannot ask (a code, then the same call with it), through the
catalog's real server in memory. Right before its write request number STOP_BEFORE (1 = the
first) would leave, it prints `stopped` and waits forever: the requests before it were answered,
that one is never sent. The test then kills it.
"""

from __future__ import annotations

import json
import os
import sys

import anyio
import django


async def write(tool: str, arguments: dict, stop_before: int) -> str:
    from mcp import Client

    from avenir_mcp.mcp_surface.server import build_server
    from avenir_mcp.tokens.auth import Principal
    from avenir_mcp.ynab_client.client import Sender

    send = Sender.send
    writes = 0

    async def send_until_stopped(self: Sender, call):
        nonlocal writes
        if not call.is_read:
            writes += 1
            if writes == stop_before:
                print("stopped", flush=True)
                await anyio.sleep_forever()
        return await send(self, call)

    Sender.send = send_until_stopped

    server = build_server(writes=True, local_principal=Principal.local("dying writer"))
    async with Client(server, mode="2026-07-28") as client:
        first = await client.call_tool(tool, arguments)
        code = (first.structured_content or {}).get("confirmation")
        result = await client.call_tool(tool, {**arguments, "confirmation": code} if code else arguments)
    return result.content[0].text


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_mcp.avenir_site.settings")
    django.setup()
    tool, arguments, stop_before = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
    print(anyio.run(write, tool, arguments, stop_before), flush=True)


if __name__ == "__main__":
    main()
