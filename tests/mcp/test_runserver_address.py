"""`manage.py runserver [address:]port`: which address it serves, the service's own URL
following that port, and Django's system checks before it serves (the process itself is
tested in test_runserver.py)."""

from __future__ import annotations

import pytest
from django.core import checks
from django.core.management import CommandError, call_command

from avenir_mcp.avenir_site.asgi import application, checked_application
from avenir_mcp.avenir_site.management.commands.runserver import address_served, serve_on, watched_dirs
from tests.helpers.checkout import PROJECT


@pytest.mark.parametrize(
    ("addrport", "served"),
    [
        ("9000", ("127.0.0.1", 9000)),
        ("0.0.0.0:8080", ("0.0.0.0", 8080)),
        ("[::1]:9001", ("[::1]", 9001)),
        ("budget.local:80", ("budget.local", 80)),
    ],
)
def test_it_serves_the_address_given(addrport, served):
    assert address_served(addrport) == served


def test_without_an_address_it_serves_port_on_this_machine_only(settings):
    settings.PORT = 8123

    assert address_served(None) == ("127.0.0.1", 8123)


def test_a_malformed_address_stops_it_with_one_line_before_anything_is_served():
    with pytest.raises(CommandError) as refused:
        call_command("runserver", "localhost:http", "--noreload")

    assert str(refused.value) == "'localhost:http' is not a port or address:port."


def test_the_port_served_becomes_the_services_own_address_and_its_sandboxs(settings, monkeypatch):
    monkeypatch.setenv("PORT", "8000")
    settings.AVENIR_MCP_SELF_URL_GIVEN = False
    settings.AVENIR_MCP_SELF_URL_ASSUMED = True
    settings.YNAB_IS_EMBEDDED_SANDBOX = True

    serve_on(9010)

    assert (settings.PORT, settings.AVENIR_MCP_SELF_URL) == (9010, "http://127.0.0.1:9010")
    assert settings.AVENIR_MCP_SELF_URL_ASSUMED is False  # printed set-ups say no "assuming"
    assert settings.AVENIR_MCP_YNAB_URL == "http://127.0.0.1:9010/sandbox/v1"


@pytest.mark.parametrize(
    ("self_url_given", "embedded", "own_url"),
    [(True, True, "https://budget.example"), (False, False, "http://127.0.0.1:9011")],
)
def test_an_address_or_a_ynab_given_in_the_settings_stays_as_given(
    settings, monkeypatch, self_url_given, embedded, own_url
):
    monkeypatch.setenv("PORT", "8000")
    settings.AVENIR_MCP_SELF_URL_GIVEN = self_url_given
    settings.YNAB_IS_EMBEDDED_SANDBOX = embedded
    settings.AVENIR_MCP_SELF_URL = "https://budget.example"
    settings.AVENIR_MCP_YNAB_URL = "https://api.ynab.com/v1"

    serve_on(9011)

    assert settings.PORT == 9011
    assert own_url == settings.AVENIR_MCP_SELF_URL
    assert settings.AVENIR_MCP_YNAB_URL == "https://api.ynab.com/v1"


def test_the_reloader_watches_the_projects_packages_only(settings):
    assert watched_dirs() == [settings.BASE_DIR / package for package in sorted(PROJECT)]  # not .venv, tests


def test_what_it_serves_is_the_application_once_djangos_checks_pass():
    assert checked_application() is application


def test_a_failing_system_check_stops_the_process_that_would_serve_with_djangos_report(capsys):
    def broken(app_configs, **kwargs):
        return [checks.Error("The plan store is not a folder.", id="avenir_mcp.E999")]

    checks.register(broken)
    try:
        with pytest.raises(SystemExit) as stopped:
            checked_application()
    finally:
        checks.registry.registry.registered_checks.discard(broken)

    assert stopped.value.code == 1
    assert "?: (avenir_mcp.E999) The plan store is not a folder." in capsys.readouterr().err
