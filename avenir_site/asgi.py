"""The ASGI application: Django, plus the lifespan events Django itself refuses.

Served by uvicorn (`make run`, `python manage.py runserver`).
"""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_site.settings")

from django.core.asgi import get_asgi_application

django_application = get_asgi_application()  # before anything imports models

from sandbox.traffic import SandboxTraffic  # noqa: E402

# Requests to the sandbox pass through its traffic layer (request log, limit, faults).
django_with_sandbox = SandboxTraffic(django_application)


async def _lifespan(scope, receive, send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def application(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(scope, receive, send)
        return
    await django_with_sandbox(scope, receive, send)
