"""create_mcp_token and the token step of bootstrap: a working token, shown once, hash only,
with client set-ups at the address the service uses and a stdio entry that needs no token."""

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
from pathlib import Path

import httpx2
import pytest
from django.conf import settings
from django.contrib.auth.hashers import check_password
from django.core.management import CommandError, call_command
from django.db import transaction

from avenir_mcp.sandbox.seeding import DEMO_PLAN_ID
from avenir_mcp.tokens.client_config import http_entry, stdio_setup
from avenir_mcp.tokens.models import McpToken
from tests.helpers.checkout import copy_of_project
from tests.helpers.processes import this_runs_database_url
from tests.helpers.raw_mcp import INITIALIZE, post_mcp


def create_token(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("create_mcp_token", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def printed_entries(printed: str) -> dict[str, dict]:
    """The `mcpServers` entries printed, by transport: "http" (with the token) and "stdio"."""
    entries = {}
    decoder = json.JSONDecoder()
    for start in (match.start() for match in re.finditer(r"^\{$", printed, re.MULTILINE)):
        entry = decoder.raw_decode(printed, start)[0]["mcpServers"]["avenir-mcp"]
        entries[entry.get("type", "stdio")] = entry
    return entries


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
    entries = printed_entries(printed)
    assert [row.token_hash for row in tokens] == [hashlib.sha256(token.encode()).hexdigest()]
    assert entries["http"] == {
        "type": "http",
        "url": f"{live_service.url}/mcp",
        "headers": {"Authorization": f"Bearer {token}"},
    }
    assert f"claude mcp add --transport http avenir-mcp {live_service.url}/mcp" in printed
    assert entries["stdio"]["args"][1:] == ["mcp_stdio"]  # the first token is read-write: so is stdio
    assert entries["stdio"]["env"] == {"AVENIR_MCP_WRITE": "1"}
    assert token not in json.dumps(entries["stdio"])
    assert 'More tokens: make token NAME="..." [READ_ONLY=1]' in printed
    assert token not in second.getvalue()


@pytest.mark.parametrize("read_only", [False, True])
def test_the_stdio_entry_is_printed_apart_without_the_token_and_with_the_tokens_writes(read_only):
    name = f"cli {uuid.uuid4().hex[:8]}"

    out, err = create_token(name, *(["--read-only"] if read_only else []))
    stdio = printed_entries(err)["stdio"]

    assert out.strip() not in json.dumps(stdio)
    assert "stdio needs no token" in err
    assert stdio_setup(writes=not read_only) in err
    if read_only:
        assert (stdio["args"][1:], stdio.get("env")) == (["mcp_stdio", "--read-only"], None)
        assert 'It only reads ("--read-only"); to let it propose changes' in err
    else:
        assert (stdio["args"][1:], stdio["env"]) == (["mcp_stdio"], {"AVENIR_MCP_WRITE": "1"})
        assert "It may propose changes" in err


@pytest.mark.parametrize(
    ("writes", "read_only", "warned"), [(False, False, True), (True, False, False), (False, True, False)]
)
def test_a_read_write_token_printed_while_writes_are_off_says_it_only_reads_over_http(
    settings, writes, read_only, warned
):
    settings.AVENIR_MCP_WRITE = writes

    err = create_token(f"cli {uuid.uuid4().hex[:8]}", *(["--read-only"] if read_only else []))[1]

    said = "Write tools are off in this service: over HTTP this token only reads until AVENIR_MCP_WRITE=1"
    assert (said in err) is warned


@pytest.mark.parametrize("assumed", [True, False])
def test_an_address_assumed_is_said_with_how_to_give_the_real_one(settings, assumed):
    settings.AVENIR_MCP_SELF_URL = "http://127.0.0.1:8000"
    settings.AVENIR_MCP_SELF_URL_ASSUMED = assumed

    err = create_token(f"cli {uuid.uuid4().hex[:8]}")[1]

    note = "(assuming http://127.0.0.1:8000: set PORT or AVENIR_MCP_SELF_URL if the service runs elsewhere)"
    assert (note in err) is assumed


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
    env = {**os.environ, "DATABASE_URL": this_runs_database_url(), "PORT": "18201", "AVENIR_MCP_SELF_URL": ""}

    apart = run_manage("create_mcp_token", name, env=env)
    together = run_manage("create_mcp_token", f"{name} 2", env=env, stderr=subprocess.STDOUT)
    token = apart.stdout.strip()

    assert apart.stdout == f"{token}\n"  # scripts: stdout holds the token alone
    assert "http://127.0.0.1:18201/mcp" in apart.stderr
    assert printed_entries(apart.stderr)["http"]["url"] == "http://127.0.0.1:18201/mcp"
    assert "8000" not in apart.stderr
    assert "assuming" not in apart.stderr
    assert McpToken.objects.get(name=name).token_hash == hashlib.sha256(token.encode()).hexdigest()
    last_line = together.stdout.rstrip("\n").splitlines()[-1]  # a person: the token is the last line
    assert McpToken.objects.get(name=f"{name} 2").token_hash == hashlib.sha256(last_line.encode()).hexdigest()


@pytest.mark.subprocesses
@pytest.mark.parametrize(
    ("dotenv", "address", "assumed"),
    [("PORT=18201\n", "http://127.0.0.1:18201", False), (None, "http://127.0.0.1:8000", True)],
)
def test_create_mcp_token_takes_the_port_from_dotenv_or_says_which_it_assumed(
    tmp_path, dotenv, address, assumed
):
    """A checkout of its own, so that its .env is the test's (nothing is written into this one)."""
    project = copy_of_project(tmp_path)
    if dotenv is not None:
        (project / ".env").write_text(dotenv)
    unset = {"PORT", "AVENIR_MCP_SELF_URL", "COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START"}
    env = {name: value for name, value in os.environ.items() if name not in unset}
    env["DATABASE_URL"] = this_runs_database_url()
    name = f"cli {uuid.uuid4().hex[:8]}"

    printed = run_manage("create_mcp_token", name, env=env, cwd=project).stderr

    assert printed_entries(printed)["http"]["url"] == f"{address}/mcp"
    assert printed.startswith(f"MCP endpoint: {address}/mcp\n")
    assert ("(assuming http://127.0.0.1:8000: set PORT or AVENIR_MCP_SELF_URL" in printed) is assumed
    assert McpToken.objects.filter(name=name).exists()


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


def run_manage(
    *args: str, env: dict[str, str], stderr: int = subprocess.PIPE, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=cwd or settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        timeout=60,
        check=True,
    )
