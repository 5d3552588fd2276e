"""server.json, the entry for the official MCP registry (README: Publishing), is valid and true.

`server.schema.2025-12-11.json` beside this file is a byte-for-byte copy of the registry's
schema, https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json, taken from
the repository that serves it (github.com/modelcontextprotocol/static, the file
schemas/2025-12-11/server.schema.json at commit a9ba437; sha256 3fba0959…4114de0). A newer
schema is a deliberate change: the copy, its name here and server.json's `$schema` together.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
from django.conf import settings

from avenir_mcp.avenir_site.management.commands.mcp_bundle import ENVIRONMENT
from avenir_mcp.mcp_surface.version import SERVER_VERSION
from tests.helpers.settings_module import settings_under

SCHEMA = Path(__file__).with_name("server.schema.2025-12-11.json")
ENTRY = json.loads((settings.BASE_DIR / "server.json").read_text(encoding="utf-8"))
(PACKAGE,) = ENTRY["packages"]


def test_it_is_valid_against_the_registrys_schema():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)

    assert ENTRY["$schema"] == schema["$id"]
    assert [error.message for error in validator.iter_errors(ENTRY)] == []


def test_it_describes_the_wheel_of_this_version_run_over_stdio():
    project = tomllib.loads((settings.BASE_DIR / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    assert ENTRY["version"] == PACKAGE["version"] == SERVER_VERSION  # the wheel's (pyproject.toml)
    assert (PACKAGE["registryType"], PACKAGE["identifier"]) == ("pypi", project["name"])
    assert PACKAGE["transport"] == {"type": "stdio"}
    assert [argument["value"] for argument in PACKAGE["packageArguments"]] == ["stdio"]
    assert [remote["url"] for remote in ENTRY["remotes"]] == ["https://{host}/mcp"]


def test_its_variables_are_the_settings_the_bundle_asks_for_and_the_service_reads(monkeypatch):
    variables = {variable["name"]: variable for variable in PACKAGE["environmentVariables"]}
    booleans = {name for name, variable in variables.items() if variable.get("format") == "boolean"}
    given = {name: "true" if name in booleans else f"given-{name}" for name in variables}
    read = settings_under(monkeypatch, **given)

    assert set(variables) == set(ENVIRONMENT)
    assert {name: read[name] for name in variables} == {
        name: True if name in booleans else given[name] for name in variables
    }
    assert [name for name, variable in variables.items() if variable.get("isSecret")] == ["YNAB_API_KEY"]


def test_the_readme_names_the_server_for_the_registrys_check_of_the_package():
    # The registry accepts a PyPI package only if its description (the README) carries this line.
    assert f"mcp-name: {ENTRY['name']}" in (settings.BASE_DIR / "README.md").read_text(encoding="utf-8")
