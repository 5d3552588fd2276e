"""An HTTP transport to the live sandbox that garbles one path's answers: the request ran, its
answer cannot be read."""

from __future__ import annotations

import httpx2


class GarblingTransport(httpx2.AsyncBaseTransport):
    """The live sandbox over real HTTP, except that the answer to `method` requests of one path
    arrives as a 200 holding `body` (by default a proxy's page nobody can read): the request
    itself ran."""

    def __init__(
        self, garbled_path_end: str, method: str = "PATCH", body: bytes = b"<html>proxy page</html>"
    ) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.garbled_path_end, self.method, self.body = garbled_path_end, method, body

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == self.method and request.url.path.endswith(self.garbled_path_end):
            await response.aread()
            await response.aclose()
            return httpx2.Response(200, content=self.body, request=request)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
