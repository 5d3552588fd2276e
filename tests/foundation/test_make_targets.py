"""`make token` and `make stdio`: the commands the home page and the README give, from the
checkout's venv (nothing to activate), and `make run`, which leaves the port to the settings so
that a PORT in .env is the one served and printed. `make -n` prints the commands, runs none."""

from __future__ import annotations

import subprocess

import pytest
from django.conf import settings

pytestmark = pytest.mark.subprocesses


def planned(*args: str) -> subprocess.CompletedProcess:
    """What `make -n ARGS` would run, in the checkout (make -n writes nothing)."""
    return subprocess.run(
        ["make", "--no-print-directory", "-n", *args],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["token", "NAME=x"], ".venv/bin/python manage.py create_mcp_token 'x'"),
        (
            ["token", "NAME=Claude's Desktop", "READ_ONLY=1"],
            r"create_mcp_token 'Claude'\''s Desktop' --read-only",
        ),
        (["stdio"], "exec .venv/bin/python manage.py mcp_stdio"),
        (["stdio", "READ_ONLY=1"], "exec .venv/bin/python manage.py mcp_stdio --read-only"),
        (["run"], "exec .venv/bin/python manage.py runserver"),
    ],
)
def test_each_target_runs_the_command_from_the_venv_after_migrating(args, command):
    lines = planned(*args).stdout.splitlines()

    assert lines[-1].endswith(command)
    assert any(line.startswith(".venv/bin/python manage.py migrate --noinput") for line in lines)


def test_make_token_without_a_name_says_how_to_give_one():
    refused = planned("token")

    assert refused.returncode != 0
    assert 'Name the token: make token NAME="Claude Code" [READ_ONLY=1]' in refused.stderr
