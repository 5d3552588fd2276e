"""/mcp over HTTP without the SDK: the requests and headers a raw client sends, one POST at a time."""

from __future__ import annotations

import httpx2

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def post_mcp(base_url: str, body: dict, *, token: str | None = None, **headers: str) -> httpx2.Response:
    sent = dict(MCP_HEADERS, **headers)
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    return httpx2.post(f"{base_url}/mcp", json=body, headers=sent, timeout=30)


async def post_initialize(http: httpx2.AsyncClient, base_url: str, token: str) -> httpx2.Response:
    """`initialize` with a bearer token, through the caller's own client."""
    return await http.post(
        f"{base_url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    )
