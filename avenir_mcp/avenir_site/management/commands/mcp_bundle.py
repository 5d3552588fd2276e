"""`manage.py mcp_bundle WHEEL FOLDER`: lay out the .mcpb bundle of the wheel WHEEL in FOLDER.

`make dist` runs it, then packs FOLDER into `dist/avenir-mcp.mcpb` with the official CLI (npm
`@anthropic-ai/mcpb`, `mcpb pack`, which validates the manifest first). The bundle is what a
desktop host (Claude Desktop) installs in one click, following the MCPB manifest spec 0.4:

- server type `uv`: the host installs the Python dependencies itself, with uv, from the
  bundle's `pyproject.toml`, for the person's platform and a Python uv provides. The `python`
  type would have to carry every dependency inside the bundle, and the compiled ones (pydantic's
  core, psycopg's binary) cannot be carried for every platform in one file; `uv` keeps the bundle
  to the wheel and a few files. The project depends only on the wheel, which is inside.
- `mcp_config`: what the host runs, `uv run --directory <bundle> server/main.py`, which starts
  `avenir-mcp stdio`; the person's answers to `user_config` reach the service as the settings it
  reads (README: the YNAB key, the default plan, whether the agent may propose changes).
- the tools and prompts listed are the registry's, read when the bundle is made, so they cannot
  drift from what the server offers; the icon is the service's (`mcp_surface.server.ICON_DIR`).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.server import ICON_DIR, SERVER_NAME, SERVER_TITLE, SERVER_VERSION, build_server
from avenir_mcp.values.text import one_line

MANIFEST_VERSION = "0.4"
ENTRY_POINT = "server/main.py"

USER_CONFIG: dict[str, dict[str, Any]] = {
    "ynab_api_key": {
        "type": "string",
        "title": "YNAB personal access token",
        "description": "From YNAB: Account Settings → Developer Settings. Leave it empty to try "
        "avenir-mcp on its invented demo plan, with no YNAB account.",
        "sensitive": True,
        "required": False,
        "default": "",
    },
    "default_plan": {
        "type": "string",
        "title": "Default plan",
        "description": "The plan used when the agent names none: a plan id from list_plans. "
        "Empty: YNAB's default plan, or your only one.",
        "required": False,
        "default": "",
    },
    "allow_changes": {
        "type": "boolean",
        "title": "Let the agent propose changes",
        "description": "Off: the agent only reads your plan. On: it may propose changes, each "
        "previewed and applied only once you confirm it, logged and undoable.",
        "required": False,
        "default": False,
    },
}
ENVIRONMENT = {
    "YNAB_API_KEY": "${user_config.ynab_api_key}",
    "AVENIR_MCP_DEFAULT_PLAN": "${user_config.default_plan}",
    "AVENIR_MCP_WRITE": "${user_config.allow_changes}",
}
"""The settings each answer sets (avenir_mcp/avenir_site/settings.py reads them; blank: the default)."""

LAUNCHER = '''"""The bundle's entry point: `avenir-mcp stdio`, from the wheel the host installed."""

import sys
from importlib.metadata import entry_points

(script,) = entry_points(group="console_scripts", name="avenir-mcp")
sys.argv = ["avenir-mcp", "stdio", *sys.argv[1:]]
sys.exit(script.load()())
'''


class Command(BaseCommand):
    help = "Lay out the .mcpb bundle of a wheel in a new folder (then: mcpb pack FOLDER)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("wheel", type=Path, help="The avenir-mcp wheel the bundle installs.")
        parser.add_argument("folder", type=Path, help="A folder to create for the bundle's files.")

    def handle(self, *args, wheel: Path, folder: Path, **options) -> None:
        if not wheel.is_file() or wheel.suffix != ".whl":
            raise CommandError(f"{wheel} is not a wheel: build one first (make dist).")
        if folder.exists():
            raise CommandError(f"{folder} exists already: give a folder to create.")
        write_bundle(wheel, folder)
        self.stdout.write(f"Wrote the bundle's files in {folder}; pack them with: mcpb pack {folder}")


def write_bundle(wheel: Path, folder: Path) -> None:
    """The bundle's files in `folder` (created): manifest, icon, project, entry point, wheel."""
    (folder / "server").mkdir(parents=True)
    shutil.copyfile(wheel, folder / wheel.name)
    shutil.copyfile(ICON_DIR / "favicon-512.png", folder / "icon.png")
    (folder / ENTRY_POINT).write_text(LAUNCHER, encoding="utf-8")
    (folder / "pyproject.toml").write_text(_project(wheel.name), encoding="utf-8")
    (folder / "manifest.json").write_text(json.dumps(manifest(), indent=2) + "\n", encoding="utf-8")


def _project_table() -> dict[str, Any]:
    """pyproject.toml's [project]: the bundle is made from a checkout."""
    return tomllib.loads((settings.BASE_DIR / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _project(wheel_name: str) -> str:
    return f"""# The environment the desktop host makes for the bundle with uv (server type "uv").
[project]
name = "{SERVER_NAME}-bundle"
version = "{SERVER_VERSION}"
requires-python = "{_project_table()["requires-python"]}"
dependencies = ["{SERVER_NAME}"]

[tool.uv.sources]
{SERVER_NAME} = {{ path = "{wheel_name}" }}
"""


def manifest() -> dict[str, Any]:
    """manifest.json as the registry makes it today."""
    return asyncio.run(_manifest())


async def _manifest() -> dict[str, Any]:
    project = _project_table()
    specs = catalog_specs()
    prompts = await build_server(writes=True, local_principal=None, specs=specs).list_prompts()
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": SERVER_NAME,
        "display_name": SERVER_TITLE,
        "version": SERVER_VERSION,
        "description": project["description"],
        "long_description": "The agent reads your YNAB plan freely; every change it proposes is "
        "previewed, waits for your confirmation, is logged and can be undone. Without a YNAB "
        "token it serves an invented demo plan.",
        "author": {"name": f"{SERVER_NAME} contributors"},
        "icon": "icon.png",
        "server": {
            "type": "uv",
            "entry_point": ENTRY_POINT,
            "mcp_config": {
                "command": "uv",
                "args": ["run", "--directory", "${__dirname}", "--quiet", ENTRY_POINT],
                "env": ENVIRONMENT,
            },
        },
        "tools": [
            {
                "name": spec.name,
                "description": _first_paragraph(spec.description)
                + ("" if spec.is_read_only else " (Only when the agent may propose changes.)"),
            }
            for spec in specs
        ],
        "prompts": [
            {
                "name": prompt.name,
                "description": prompt.description or "",
                "arguments": [argument.name for argument in prompt.arguments or []],
                "text": _prompt_text(prompt.description or "", [a.name for a in prompt.arguments or []]),
            }
            for prompt in prompts
        ],
        "keywords": ["ynab", "budget", "personal finance"],
        "privacy_policies": ["https://www.ynab.com/privacy-policy"],
        "compatibility": {
            "platforms": ["darwin", "win32", "linux"],
            "runtimes": {"python": project["requires-python"]},
        },
        "user_config": USER_CONFIG,
    }


def _first_paragraph(text: str) -> str:
    return one_line(text.split("\n\n", 1)[0])


def _prompt_text(description: str, arguments: list[str]) -> str:
    """The manifest's stand-in for a prompt the server renders (`prompts/get` writes the real one,
    from the plan): what it does, then each argument given."""
    return description + "".join(f"\n{name}: ${{arguments.{name}}}" for name in arguments)
