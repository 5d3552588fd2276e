"""create_mcp_token and the token step of bootstrap: a working token, shown once, hash only."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import uuid

import httpx2
import pytest
from django.conf import settings
from django.contrib.auth.hashers import check_password
from django.core.management import CommandError, call_command
from django.db import transaction

from sandbox.seeding import DEMO_PLAN_ID
from tests.helpers.processes import this_runs_database_url
from tests.helpers.raw_mcp import INITIALIZE, post_mcp
from tokens.client_config import http_entry
from tokens.models import McpToken


def create_token(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("create_mcp_token", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_create_mcp_token_prints_a_working_token_alone_on_stdout(live_service):
    name = f"cli {uuid.uuid4().hex[:8]}"

    out, err = create_token(name)
    token = out.strip()

    assert out == f"{token}\n"
    assert "shown once" in err
    assert post_mcp(live_service.url, INITIALIZE, token=token).status_code == 200


def test_create_mcp_token_stores_only_the_hash_of_the_token():
    name = f"cli {uuid.uuid4().hex[:8]}"

    token = create_token(name)[0].strip()
    row = McpToken.objects.get(name=name)
    stored = {field.attname: str(getattr(row, field.attname)) for field in McpToken._meta.fields}

    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert not any(token in value for value in stored.values())
    assert row.read_only is False


def test_create_mcp_token_issues_a_read_only_token_when_asked():
    name = f"cli {uuid.uuid4().hex[:8]}"

    create_token(name, "--read-only")

    assert McpToken.objects.get(name=name).read_only is True


def test_create_mcp_token_refuses_a_name_already_used():
    name = f"cli {uuid.uuid4().hex[:8]}"
    create_token(name)

    with pytest.raises(CommandError, match="exists already"):
        create_token(name)


@pytest.mark.parametrize("name", ["   ", "x" * 101])
def test_create_mcp_token_refuses_an_empty_or_too_long_name(name):
    with pytest.raises(CommandError, match=r"Give a name of 1 to 100 characters\."):
        create_token(name)

    assert not McpToken.objects.filter(name__in=[name, name.strip()]).exists()


def test_bootstrap_issues_a_first_token_once_and_prints_client_setups(live_service, settings):
    settings.YNAB_API_KEY = "set, so the sandbox is not seeded here"
    with transaction.atomic():
        McpToken.objects.all().delete()  # a fresh install, rolled back below
        first, second = io.StringIO(), io.StringIO()
        call_command("bootstrap", stdout=first)
        call_command("bootstrap", stdout=second)
        tokens = list(McpToken.objects.all())
        transaction.set_rollback(True)

    printed = first.getvalue()
    token = printed.split("only its hash is kept): ")[1].split()[0]
    entry = json.loads(printed[printed.index("{") : printed.index("\n}\n") + 2])["mcpServers"]["avenir-mcp"]
    assert [row.token_hash for row in tokens] == [hashlib.sha256(token.encode()).hexdigest()]
    assert entry == {
        "type": "http",
        "url": f"{live_service.url}/mcp",
        "headers": {"Authorization": f"Bearer {token}"},
    }
    assert f"claude mcp add --transport http avenir-mcp {live_service.url}/mcp" in printed
    assert "mcp_stdio" in printed
    assert token not in second.getvalue()


def test_the_printed_http_entry_reaches_the_service(live_service, issue_token):
    _row, token = issue_token()
    entry = json.loads(http_entry(token))["mcpServers"]["avenir-mcp"]

    response = httpx2.post(
        entry["url"],
        json=INITIALIZE,
        headers={**entry["headers"], "Accept": "application/json, text/event-stream"},
        timeout=30,
    )

    assert response.status_code == 200


@pytest.mark.subprocesses
def test_create_mcp_token_follows_port_and_ends_with_the_token_in_a_terminal():
    name = f"cli {uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": this_runs_database_url(), "PORT": "8701", "AVENIR_MCP_SELF_URL": ""}

    apart = run_manage("create_mcp_token", name, env=env)
    together = run_manage("create_mcp_token", f"{name} 2", env=env, stderr=subprocess.STDOUT)
    token = apart.stdout.strip()

    assert apart.stdout == f"{token}\n"  # scripts: stdout holds the token alone
    assert "http://127.0.0.1:8701/mcp" in apart.stderr
    assert "8000" not in apart.stderr
    assert McpToken.objects.get(name=name).token_hash == hashlib.sha256(token.encode()).hexdigest()
    last_line = together.stdout.rstrip("\n").splitlines()[-1]  # a person: the token is the last line
    assert McpToken.objects.get(name=f"{name} 2").token_hash == hashlib.sha256(last_line.encode()).hexdigest()


@pytest.mark.subprocesses
def test_bootstrap_on_a_fresh_install_seeds_the_demo_and_creates_a_working_admin_login(tmp_path):
    """What `make run` does on a new machine: migrate, then bootstrap (twice: a second run is quiet)."""
    database = tmp_path / "fresh.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "YNAB_API_KEY": ""}
    run_manage("migrate", "--noinput", env=env)

    first = run_manage("bootstrap", env=env).stdout
    second = run_manage("bootstrap", env=env).stdout

    password = re.search(r"user: admin  password: (\S+)", first)[1]
    with sqlite3.connect(database) as rows:
        (stored,) = rows.execute("SELECT password FROM auth_user WHERE username = 'admin'").fetchone()
        plans = rows.execute("SELECT id, name FROM sandbox_plan").fetchall()
    assert first.startswith(f"Demo plan 'Demo household' seeded: id {DEMO_PLAN_ID}")
    assert check_password(password, stored)
    assert plans == [(DEMO_PLAN_ID, "Demo household")]
    assert second.splitlines() == ["Sandbox: plans already present, nothing seeded."]


def run_manage(*args: str, env: dict[str, str], stderr: int = subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        timeout=60,
        check=True,
    )
