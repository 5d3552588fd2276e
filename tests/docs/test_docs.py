"""docs/ stays true to the code: the tools reference is regenerated with every tool change,
the code cites docs/ (never specs outside the repository), and every cited anchor exists."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from avenir_mcp.avenir_site.management.commands import tools_reference
from avenir_mcp.avenir_site.management.commands.tools_reference import COMMAND, REFERENCE, render_reference
from tests.helpers.checkout import PROJECT
from tests.helpers.floors import FLOORS

ROOT = Path(settings.BASE_DIR)
DOCS = ROOT / "docs"
PRODUCTION = PROJECT
CITING = (*PRODUCTION, "tests", "bench")

# The specs outside the repository (../shared): a newcomer cannot follow a citation of them.
OUTSIDE = re.compile(
    r"\.\./shared|shared/(?:spec|notes|seeds|ynab)/|\b(?:TOOLS|CONFIRMATION|PRODUCT|ARCHITECTURE|STYLE)\.md"
    r"|notes/(?:ynab_api|mcp_sdk)\.md|mcp_prototype"
)
CITATION = re.compile(r"docs/([\w-]+\.md)(?:#([\w-]+))?")
LINK = re.compile(r"\]\(([\w./-]*\.md)?(?:#([\w-]+))?\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.MULTILINE)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(heading) for heading in HEADING.findall(page.read_text(encoding="utf-8"))}


def python_files(packages: tuple[str, ...]) -> list[Path]:
    return sorted(path for package in packages for path in (ROOT / package).rglob("*.py"))


def tools_reference_command(*args: str) -> str:
    out = io.StringIO()
    call_command("tools_reference", *args, stdout=out)
    return out.getvalue()


def test_the_tools_reference_is_generated_from_the_registry_as_it_is():
    assert tools_reference_command("--check") == "docs/tools.md is up to date.\n", (
        f"docs/tools.md is stale; regenerate it with: {COMMAND}"
    )


def test_the_command_refuses_a_stale_reference_and_writes_the_registrys(tmp_path, monkeypatch, settings):
    expected = render_reference()  # before BASE_DIR moves
    settings.BASE_DIR = tmp_path  # a checkout without docs/ yet
    reference = tmp_path / "docs" / "tools.md"
    monkeypatch.setattr(tools_reference, "REFERENCE", reference)

    with pytest.raises(CommandError, match=f"docs/tools.md is stale; run: {re.escape(COMMAND)}"):
        tools_reference_command("--check")
    written = tools_reference_command()
    checked = tools_reference_command("--check")

    assert written == "Wrote docs/tools.md.\n"
    assert reference.read_text(encoding="utf-8") == expected
    assert checked == "docs/tools.md is up to date.\n"


def test_the_tools_reference_has_every_tool_with_its_arguments():
    from avenir_mcp.mcp_surface.catalog import catalog_specs

    reference = REFERENCE.read_text(encoding="utf-8")
    sections = set(re.findall(r"^### (\w+)$", reference, re.MULTILINE))

    assert {spec.name for spec in catalog_specs()} <= sections
    budget = reference.split("### set_category_budget\n", 1)[1].split("\n### ", 1)[0]
    assert "write, confirmed by the person" in budget
    assert "- `amount`: decimal amount, as a string or a number; required." in budget
    assert "- `confirmation`: string, at most 100 characters, or null; default `null`." in budget


def test_no_production_code_cites_specs_outside_the_repository():
    citing = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in python_files(PRODUCTION)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if OUTSIDE.search(line)
    ]

    assert not citing, "Cite docs/ instead of the shared specs:\n" + "\n".join(citing)


def test_every_docs_anchor_the_code_cites_exists():
    pages = {page.name: anchors(page) for page in DOCS.glob("*.md")}
    broken = [
        f"{path.relative_to(ROOT)}: docs/{page}" + (f"#{anchor}" if anchor else "")
        for path in python_files(CITING)
        for page, anchor in CITATION.findall(path.read_text(encoding="utf-8"))
        if page not in pages or (anchor and anchor not in pages[page])
    ]

    assert not broken, "Citations of docs/ that lead nowhere:\n" + "\n".join(broken)


def test_every_link_between_the_pages_leads_somewhere():
    broken = []
    for page in [*DOCS.glob("*.md"), ROOT / "README.md"]:
        for target, anchor in LINK.findall(page.read_text(encoding="utf-8")):
            linked = (page.parent / target).resolve() if target else page
            if not linked.exists() or (anchor and anchor not in anchors(linked)):
                broken.append(f"{page.relative_to(ROOT)}: ({target}#{anchor})")

    assert not broken, "Links that lead nowhere:\n" + "\n".join(broken)


def test_every_file_the_pages_name_exists():
    """Module names go stale when files move: the pages name them in backticks, checked here."""
    named = re.compile(rf"`((?:{'|'.join(CITING)})/[\w./*-]*)`")
    missing = [
        f"{page.relative_to(ROOT)}: {path}"
        for page in DOCS.glob("*.md")
        for path in named.findall(page.read_text(encoding="utf-8"))
        if not list(ROOT.glob(path.rstrip("/")))
    ]

    assert not missing, "Files the docs name that do not exist (update the page):\n" + "\n".join(missing)


def _module_table() -> list[str]:
    """The paths named in docs/architecture.md's module table (files, and folders ending in /)."""
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    table = page.split("## Modules", 1)[1]
    return re.findall(r"`([\w/.]+)`", "\n".join(line for line in table.splitlines() if line.startswith("|")))


def test_the_module_table_names_every_production_module():
    """docs/architecture.md maps every job to its files: a new module is placed there, or this fails."""
    named = _module_table()
    modules = [
        path.relative_to(ROOT).as_posix()
        for package in PRODUCTION
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts and path.read_text(encoding="utf-8").strip()
    ]
    unnamed = [
        module
        for module in modules
        if not any(module == path or (path.endswith("/") and module.startswith(path)) for path in named)
    ]
    assert not unnamed, "Modules docs/architecture.md#modules does not place:\n" + "\n".join(unnamed)


def test_the_floors_page_lists_the_floors_the_layer_test_checks():
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    floors = page.split("## Floors", 1)[1].split("## Modules", 1)[0]
    listed = [
        re.findall(r"`([\w/]+)`", line.split(":", 1)[0])
        for line in floors.splitlines()
        if re.match(r"\d+\. ", line)
    ]
    assert [[f"avenir_mcp.{name.replace('/', '.')}" for name in floor] for floor in listed] == [
        list(floor) for floor in FLOORS
    ]


# `python manage.py ...` fails where the venv is not active (No module named 'django'): what a
# newcomer is told to run names `.venv/bin/python` or a make target (`make token`, `make stdio`).
BARE_PYTHON = re.compile(r"(?<![\w/.-])python3? manage\.py")


def test_every_command_given_to_a_newcomer_runs_without_activating_the_venv(client):
    pages = [ROOT / "README.md", ROOT / ".env.example", *sorted(DOCS.glob("*.md")), *python_files(PRODUCTION)]
    home = client.get("/").content.decode()

    bare = [
        f"{page.relative_to(ROOT)}: {found}"
        for page in pages
        for found in BARE_PYTHON.findall(page.read_text())
    ]
    assert bare == []
    assert BARE_PYTHON.findall(home) == []
    assert "make stdio" in home
    assert 'make token NAME="Claude Code"' in html.unescape(home)
