"""A native client's redirect URI for real: an HTTP listener on 127.0.0.1 keeping the first
`/callback` a browser is sent to (where the SDK's `callback_handler` reads the code)."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import anyio

from tests.helpers.oauth import query_of

# No favicon request: the listener may be gone by the time a browser would ask.
_PAGE = (
    b'<!doctype html><html><head><title>Signed in</title><link rel="icon" href="data:,"></head>'
    b"<body>Close this tab.</body></html>"
)


class LoopbackCallback:
    """`async with LoopbackCallback() as callback`: `callback.redirect_uri` to register, then
    `await callback.received()` for the query the browser brought back."""

    def __init__(self) -> None:
        self._sent_back: asyncio.Future[str] | None = None
        self._server: asyncio.Server | None = None
        self.redirect_uri = ""

    async def __aenter__(self) -> LoopbackCallback:
        self._sent_back = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_uri = f"http://127.0.0.1:{port}/callback"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._server.close()
        # Python 3.12+ also waits for open connections: a browser's idle preconnect must not hang.
        with anyio.move_on_after(5):
            await self._server.wait_closed()

    async def received(self) -> dict[str, str]:
        with anyio.fail_after(20):
            return query_of(await asyncio.shield(self._sent_back))

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_line = await reader.readline()
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass  # the headers
        target = request_line.split()[1].decode() if request_line.count(b" ") >= 2 else "/"
        if urlsplit(target).path == "/callback" and not self._sent_back.done():
            self._sent_back.set_result(target)
        head = (
            f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(_PAGE)}\r\n"
        )
        writer.write(head.encode() + b"Connection: close\r\n\r\n" + _PAGE)
        await writer.drain()
        writer.close()
