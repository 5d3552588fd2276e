"""The `avenir-mcp` command (avenir_mcp/avenir_site/cli.py), run from the checkout: each command migrates
first, one process at a time; a failure is one line. tests/distribution/test_wheel.py runs the
same command installed from the wheel."""

from __future__ import annotations

import html
import json
import re
import shlex
import stat
import sys
import uuid

import anyio
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from mcp import Client, StdioServerParameters

from avenir_mcp.avenir_site import cli
from avenir_mcp.sandbox.seeding import DEMO_PLAN_ID, DEMO_PLAN_NAME
from avenir_mcp.tokens.client_config import stdio_entry, token_command
from avenir_mcp.tokens.models import McpToken, hash_token
from tests.helpers.stdio import measured

# The command as an installed copy's client set-up starts it, from the checkout (so coverage.py
# measures it).
AVENIR_MCP = ["-m", "avenir_mcp.avenir_site.cli"]


@pytest.fixture
def home(settings, tmp_path):
    """A home folder of the test's own for the start lock (the database stays the run's)."""
    settings.LOCAL_DIR = tmp_path / "home"
    return settings.LOCAL_DIR


def test_token_prints_a_working_token_alone_on_stdout(home, capsys):
    name = f"cli {uuid.uuid4().hex[:8]}"

    status = cli.main(["token", name, "--read-only"])

    token = capsys.readouterr().out.strip()
    assert status == 0
    issued = McpToken.objects.get(name=name)
    assert issued.read_only
    assert issued.token_hash == hash_token(token)
    assert stat.S_IMODE((home / "start.lock").stat().st_mode) == 0o600


def test_a_refused_command_is_one_line_and_status_1(home, capsys):
    status = cli.main(["token", " "])

    assert status == 1
    assert capsys.readouterr().err == "avenir-mcp: Give a name of 1 to 100 characters.\n"


def test_admin_asks_for_the_password_and_creates_an_owner_login(home, monkeypatch, capsys):
    username = f"owner-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "a long passphrase, typed twice")

    status = cli.main(["admin", "--username", username, "--email", "owner@example.com"])

    assert status == 0
    assert "Superuser created successfully." in capsys.readouterr().out
    owner = get_user_model().objects.get(username=username)
    assert owner.is_superuser
    assert owner.check_password("a long passphrase, typed twice")


def test_manage_runs_any_management_command(home, capsys):
    status = cli.main(["manage", "check"])

    assert status == 0
    assert capsys.readouterr().out.startswith("System check identified no issues")


def test_manage_help_lists_the_management_commands(home, capsys):
    status = cli.main(["manage", "--help"])

    assert status == 0
    assert "mcp_stdio" in capsys.readouterr().out


def test_an_unknown_option_is_refused_with_the_usage(capsys):
    with pytest.raises(SystemExit) as refused:
        cli.main(["stdio", "--writable"])

    assert refused.value.code == 2
    assert capsys.readouterr().err.endswith("avenir-mcp: error: unrecognized arguments: --writable\n")


def test_serve_prepares_then_serves_where_asked_an_ipv6_address_in_brackets(home, monkeypatch):
    called = []
    monkeypatch.setattr(cli, "call_command", lambda name, *args, **options: called.append((name, *args)))
    monkeypatch.setattr(settings, "AVENIR_MCP_SELF_URL", settings.AVENIR_MCP_SELF_URL)
    monkeypatch.setattr(settings, "PORT", settings.PORT)

    cli.main(["serve", "--host", "::1", "--port", "8765"])

    assert called == [("migrate",), ("bootstrap",), ("runserver", "[::1]:8765")]


def test_serve_with_several_workers_passes_them_to_runserver(home, monkeypatch):
    called = []
    monkeypatch.setattr(cli, "call_command", lambda name, *args, **options: called.append((name, options)))
    monkeypatch.setattr(settings, "AVENIR_MCP_SELF_URL", settings.AVENIR_MCP_SELF_URL)
    monkeypatch.setattr(settings, "PORT", settings.PORT)
    monkeypatch.setattr(settings, "REDIS_URL", "redis://127.0.0.1:6379/0")  # nothing connects to it

    cli.main(["serve", "--port", "8765", "--workers", "3"])

    assert called[-1] == ("runserver", {"use_reloader": False, "workers": 3})


@pytest.mark.parametrize(
    ("workers", "said"),
    [
        (
            "2",
            "avenir-mcp: --workers above 1 needs REDIS_URL: without it each worker keeps its own "
            "confirmations, YNAB hour and plans, and the state would split.\n",
        ),
        ("0", "avenir-mcp: --workers must be 1 or more.\n"),
    ],
)
def test_serve_refuses_workers_that_would_split_the_state_before_starting(
    home, monkeypatch, capsys, workers, said
):
    called = []
    monkeypatch.setattr(cli, "call_command", lambda name, *args, **options: called.append(name))

    status = cli.main(["serve", "--workers", workers])  # REDIS_URL unset: one process's state

    assert status == 1
    assert capsys.readouterr().err == said
    assert called == []  # nothing migrated, nothing printed, nothing served


def test_an_installed_copys_home_page_and_set_ups_name_the_avenir_mcp_command(settings, client):
    settings.IS_CHECKOUT = False

    page = html.unescape(re.sub(r"<[^>]+>", "", client.get("/").content.decode()))
    entry = json.loads(stdio_entry(writes=False))["mcpServers"]["avenir-mcp"]

    assert 'avenir-mcp token "Claude Code"' in page
    assert "avenir-mcp stdio;" in page
    assert shlex.join([sys.executable, "-m", "avenir_mcp.avenir_site.cli", "stdio"]) in page
    assert entry == {
        "command": sys.executable,
        "args": ["-m", "avenir_mcp.avenir_site.cli", "stdio", "--read-only"],
    }
    assert token_command() == 'avenir-mcp token "..." [--read-only]'


@pytest.mark.subprocesses
@pytest.mark.anyio
async def test_stdio_in_a_fresh_home_migrates_seeds_and_answers_with_the_demo_plan(tmp_path):
    server = StdioServerParameters(
        command=sys.executable,
        args=[*AVENIR_MCP, "stdio"],
        cwd=str(settings.BASE_DIR),
        env=measured({"AVENIR_MCP_HOME": str(tmp_path / "home")}),
    )
    with anyio.fail_after(120):
        async with Client(server) as client:
            listed = await client.call_tool("list_plans", {})

    plans = [(plan["plan_id"], plan["name"]) for plan in listed.structured_content["plans"]]
    assert plans == [(DEMO_PLAN_ID, DEMO_PLAN_NAME)]
    assert (tmp_path / "home" / "db.sqlite3").exists()
