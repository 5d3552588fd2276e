"""A process starts with the garbage collector paused and then runs with it on, what the start
made set aside (avenir_mcp/avenir_site/startup.py): a service left with the collector off would grow
without bound, one that freezes nothing walks its start-up objects at every full collection."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest
from django.conf import settings

from avenir_mcp.avenir_site.startup import collection_paused
from tests.helpers.processes import service_env

pytestmark = pytest.mark.subprocesses

SAYS_HOW_THE_COLLECTOR_RUNS = "import gc; print(gc.isenabled(), gc.get_freeze_count() > 100_000)"


def said_by(*command: str) -> str:
    """The last line the command printed (Django's shell first says what it imported)."""
    done = subprocess.run(
        [sys.executable, *command],
        cwd=settings.BASE_DIR,
        env=service_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_a_manage_py_command_runs_with_the_collector_on_and_django_set_aside():
    assert said_by("manage.py", "shell", "-c", SAYS_HOW_THE_COLLECTOR_RUNS) == "True True"


def test_the_process_uvicorn_starts_serves_with_the_collector_on_and_the_application_set_aside():
    loaded = f"import avenir_mcp.avenir_site.asgi; {SAYS_HOW_THE_COLLECTOR_RUNS}"

    assert said_by("-c", loaded) == "True True"


def test_a_start_made_with_the_collector_off_leaves_it_off():
    # Whoever turned the collector off (a profiler, a test) keeps it off: the pause gives back
    # what it found, and only freezes what the block left alive.

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()
