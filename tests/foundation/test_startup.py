"""A process starts with the garbage collector paused and then runs with it on, what the start
made set aside (avenir_site/startup.py): a service left with the collector off would grow
without bound, one that freezes nothing walks its start-up objects at every full collection."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.conf import settings

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
    loaded = f"import avenir_site.asgi; {SAYS_HOW_THE_COLLECTOR_RUNS}"

    assert said_by("-c", loaded) == "True True"
