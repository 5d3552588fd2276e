"""What tests share lives in tests/helpers/ (or a conftest.py's fixtures), never in a test module:
importing one test module from another runs (and collects) its tests' module, ties the two
together, and hides a helper where nobody looks for it."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, dotted name) of every module `path` imports, relative imports resolved, and of each
    name imported from a package (which may be a module: `from tests.mcp import test_stdio`)."""
    package = list(path.relative_to(TESTS.parent).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def is_test_module(dotted: str) -> bool:
    parts = dotted.split(".")
    return (
        parts[0] == "tests"
        and parts[-1].startswith("test_")
        and TESTS.parent.joinpath(*parts[:-1], f"{parts[-1]}.py").is_file()
    )


def test_no_file_under_tests_imports_a_test_module():
    offending = [
        f"{path.relative_to(TESTS.parent)}:{line} imports {module}"
        for path in sorted(TESTS.rglob("*.py"))
        for line, module in imported_modules(path)
        if is_test_module(module)
    ]

    assert offending == [], "move what is shared to tests/helpers/:\n" + "\n".join(offending)


def test_the_check_sees_every_way_of_importing_a_test_module(tmp_path, monkeypatch):
    fake = tmp_path / "tests"
    (fake / "mcp").mkdir(parents=True)
    (fake / "mcp" / "test_stdio.py").write_text("")
    (fake / "mcp" / "helper.py").write_text("")
    importer = fake / "mcp" / "test_other.py"
    importer.write_text(
        "import tests.mcp.test_stdio\n"
        "from tests.mcp.test_stdio import port\n"
        "from tests.mcp import test_stdio\n"
        "from .test_stdio import port\n"
        "from . import test_stdio, helper\n"
        "from tests.mcp.helper import test_stdio_like\n"
    )
    monkeypatch.setattr(f"{__name__}.TESTS", fake)

    flagged = [line for line, module in imported_modules(importer) if is_test_module(module)]

    assert flagged == [1, 2, 3, 4, 5]
