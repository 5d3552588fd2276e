"""ASGI wrapper around the sandbox's API (request log, rate-limit emulation, faults).

Pass-through until the traffic work lands.
"""

from __future__ import annotations


class SandboxTraffic:
    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        await self.app(scope, receive, send)
