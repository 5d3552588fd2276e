"""A TCP proxy that cuts a connection the way a proxy's timeout does: in the middle of an answer.

Everything passes through untouched until the server sends an SSE event containing `marker`
(e.g. `elicitation/create`): that event reaches the client whole, then both sides of its
connection are closed, once. Later connections pass untouched; the requests resuming a stream
(`Last-Event-ID`) are counted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import anyio
from anyio import CancelScope
from anyio.abc import SocketAttribute, SocketStream

_EVENT_END = b"\r\n\r\n"  # the blank line ending an SSE event (sse-starlette's line separator)


class CuttingProxy:
    def __init__(self, target: str, marker: bytes) -> None:
        address = urlsplit(target)
        self.host, self.port = address.hostname or "127.0.0.1", address.port or 80
        self.marker = marker
        self.url = ""  # set once listening
        self.cuts = 0
        self.resumptions = 0  # requests carrying Last-Event-ID (a client resuming a stream)

    async def handle(self, client: SocketStream) -> None:
        async with (
            client,
            await anyio.connect_tcp(self.host, self.port) as upstream,
            anyio.create_task_group() as pipes,
        ):
            pipes.start_soon(self._forward, client, upstream, pipes.cancel_scope, False)
            pipes.start_soon(self._forward, upstream, client, pipes.cancel_scope, True)

    async def _forward(
        self, source: SocketStream, sink: SocketStream, pipes: CancelScope, from_server: bool
    ) -> None:
        """Copy `source` to `sink` until either side goes away, then end both directions; when
        copying the server's bytes, also once the event carrying the marker has passed."""
        seen = b""
        try:
            async for chunk in source:
                await sink.send(chunk)
                if not from_server:
                    self.resumptions += chunk.lower().count(b"\r\nlast-event-id:")
                    continue
                if self.cuts:
                    continue
                seen += chunk
                at = seen.find(self.marker)
                if at < 0:
                    seen = seen[-len(self.marker) :]
                elif seen.find(_EVENT_END, at) >= 0:
                    self.cuts += 1
                    break
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass  # the other side went away
        pipes.cancel()


@asynccontextmanager
async def cutting_proxy(target: str, marker: bytes) -> AsyncIterator[CuttingProxy]:
    """A `CuttingProxy` in front of `target` (a base URL), listening on localhost while open;
    its `url` replaces `target`'s."""
    proxy = CuttingProxy(target, marker)
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    proxy.url = f"http://127.0.0.1:{listener.extra(SocketAttribute.local_port)}"
    async with anyio.create_task_group() as group:
        group.start_soon(listener.serve, proxy.handle)
        yield proxy
        group.cancel_scope.cancel()
