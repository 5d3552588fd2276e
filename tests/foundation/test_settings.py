"""Settings read the environment once, at start-up: a malformed value stops the service with one
line naming the variable and what to give, never a guess (avenir_mcp/avenir_site/settings.py)."""

from __future__ import annotations

import os
import stat

import pytest
from django.core.exceptions import ImproperlyConfigured

from avenir_mcp.values.toolsets import TOOLSETS
from tests.helpers.settings_module import settings_under

KEY_A = "a" * 32
KEY_B = "b" * 40


@pytest.mark.parametrize(
    ("env", "refusal"),
    [
        ({"DEBUG": "maybe"}, "DEBUG must be 1 or 0 (or true/false), not 'maybe'."),
        ({"PORT": "80a"}, "PORT must be a whole number, not '80a'."),
        ({"PORT": "0"}, "PORT must be at least 1, not 0."),
        ({"AVENIR_MCP_REGISTRATION_LIMIT": "0"}, "AVENIR_MCP_REGISTRATION_LIMIT must be at least 1, not 0."),
        ({"AVENIR_MCP_CODES_TO": "Robot"}, "AVENIR_MCP_CODES_TO must be agent or person, not 'robot'."),
        (
            {"AVENIR_MCP_TOOLSETS": "insights,core"},
            "AVENIR_MCP_TOOLSETS: unknown toolset 'core'; the toolsets are plans, accounts, categories, "
            "transactions, payees, schedules, insights, operations.",
        ),
        (
            {"AVENIR_MCP_REQUEST_STATE_KEYS": f"{KEY_A},too-short"},
            "Each AVENIR_MCP_REQUEST_STATE_KEYS entry needs 32 bytes or more.",
        ),
    ],
)
def test_a_malformed_value_stops_start_up_with_one_line_saying_what_to_give(monkeypatch, env, refusal):
    with pytest.raises(ImproperlyConfigured) as refused:
        settings_under(monkeypatch, **env)

    assert str(refused.value) == refusal


def test_well_formed_values_are_read_as_given(monkeypatch):
    values = settings_under(
        monkeypatch,
        DEBUG=" Yes ",
        AVENIR_MCP_WRITE="off",
        PORT=" ",  # blank: the default
        AVENIR_MCP_FRESHNESS_SECONDS="7",
        AVENIR_MCP_REGISTRATION_LIMIT="25",
        ALLOWED_HOSTS=" budget.example , ,127.0.0.1",
        AVENIR_MCP_CODES_TO="PERSON",
        AVENIR_MCP_REQUEST_STATE_KEYS=f"{KEY_A}, {KEY_B}",
        AVENIR_MCP_TOOLSETS=" Insights, schedules ",
    )

    assert (values["DEBUG"], values["AVENIR_MCP_WRITE"], values["PORT"]) == (True, False, 8000)
    assert values["AVENIR_MCP_FRESHNESS_SECONDS"] == 7
    assert values["AVENIR_MCP_REGISTRATION_LIMIT"] == 25
    assert values["ALLOWED_HOSTS"] == ["budget.example", "127.0.0.1"]
    assert values["AVENIR_MCP_CODES_TO"] == "person"
    assert values["AVENIR_MCP_REQUEST_STATE_KEYS"] == [KEY_A, KEY_B]  # the first seals, both unseal
    assert values["AVENIR_MCP_TOOLSETS"] == {"plans", "insights", "schedules", "operations"}


def test_without_keys_the_request_state_key_comes_from_the_secret_key(monkeypatch):
    monkeypatch.delenv("AVENIR_MCP_REQUEST_STATE_KEYS", raising=False)
    one = settings_under(monkeypatch, DJANGO_SECRET_KEY="one secret")
    other = settings_under(monkeypatch, DJANGO_SECRET_KEY="another secret")

    assert one["SECRET_KEY"] == "one secret"
    [key] = one["AVENIR_MCP_REQUEST_STATE_KEYS"]
    assert len(key) == 64
    assert other["AVENIR_MCP_REQUEST_STATE_KEYS"] != [key]


def test_postgresql_gets_none_of_the_sqlite_options(monkeypatch):
    values = settings_under(monkeypatch, DATABASE_URL="postgres://avenir:secret@db.example:5433/avenir")

    database = values["DATABASES"]["default"]
    assert (database["ENGINE"], database["HOST"], database["PORT"]) == (
        "django.db.backends.postgresql",
        "db.example",
        5433,
    )
    assert "init_command" not in database.get("OPTIONS", {})
    assert "NAME" not in database.get("TEST", {})


def test_a_checkout_makes_its_secret_key_once_in_a_folder_only_its_owner_reads(monkeypatch, tmp_path):
    local_secret_key = settings_under(monkeypatch)["_local_secret_key"]
    monkeypatch.setitem(local_secret_key.__globals__, "LOCAL_DIR", tmp_path / "local")

    first, again = local_secret_key(), local_secret_key()

    assert first == again
    assert len(first) >= 50
    assert stat.S_IMODE((tmp_path / "local" / "secret_key").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "local").stat().st_mode) == 0o700


def test_without_the_setting_every_toolset_is_offered(monkeypatch):
    monkeypatch.delenv("AVENIR_MCP_TOOLSETS", raising=False)

    assert settings_under(monkeypatch)["AVENIR_MCP_TOOLSETS"] == set(TOOLSETS)


def test_the_settings_put_the_database_the_plan_store_and_the_key_in_the_home_folder(tmp_path, monkeypatch):
    for name in ("DATABASE_URL", "AVENIR_MCP_DATA_DIR", "DJANGO_SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)

    values = settings_under(monkeypatch, AVENIR_MCP_HOME=str(tmp_path / "home"))

    assert values["DATABASES"]["default"]["NAME"] == str(tmp_path / "home" / "db.sqlite3")
    assert values["AVENIR_MCP_DATA_DIR"] == tmp_path / "home"
    assert values["SECRET_KEY"] == (tmp_path / "home" / "secret_key").read_text()
    assert stat.S_IMODE((tmp_path / "home").stat().st_mode) == 0o700


def test_of_two_processes_making_the_key_at_once_both_keep_the_one_linked_first(tmp_path, monkeypatch):
    local_secret_key = settings_under(monkeypatch)["_local_secret_key"]
    monkeypatch.setitem(local_secret_key.__globals__, "LOCAL_DIR", tmp_path)
    link = os.link

    def the_other_process_links_first(draft, path):
        (tmp_path / "other").write_text("the other process's key")
        link(tmp_path / "other", path)
        link(draft, path)  # FileExistsError, as the other process won

    monkeypatch.setattr(os, "link", the_other_process_links_first)

    assert local_secret_key() == "the other process's key"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["other", "secret_key"]  # no draft left
