"""A process's start: Django set up, and the MCP servers built, with the garbage collector paused.

Starting makes some 250,000 objects that live as long as the process (the MCP SDK's protocol
models, Django's apps and admin, the tool catalogue and the models of its arguments). The cyclic
garbage collector, set off by every 700 new objects, would walk them again and again meanwhile
and free next to nothing: about a seventh of the CPU a start takes (`bench/startup.py`).
`collection_paused()` pauses it for a block, then freezes every object alive (`gc.freeze`), so
later collections never walk them either. The few cycles start-up leaves (some 16,000 objects,
measured) stay: collecting them would cost 0.2 s and give no memory back to the system.

Used where a process starts: `manage.py` (`set_up_django`), `avenir_site.asgi` (the
application, in a process uvicorn starts) and `mcp_stdio` (its server).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import django
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


@contextmanager
def collection_paused() -> Iterator[None]:
    """The block runs without the cyclic garbage collector; what is alive after it is frozen."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def set_up_django() -> None:
    """`django.setup()`, the collector paused, for a command of `manage.py`. Settings that do not
    load are left to Django's command line, which says why (and still lists its commands)."""
    try:
        settings.INSTALLED_APPS  # noqa: B018 (reading them loads them)
    except (ImproperlyConfigured, ImportError):
        return
    with collection_paused():
        django.setup()
