"""The packages' floors (docs/architecture.md#floors) and the imports that break them.

Every production module is read with `ast` (nothing imported), and each import it makes, at
any depth, is checked against the floor of both modules (`layer_problems`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "avenir_mcp"
"""The one import package; the floors are its sub-packages."""

FLOORS: tuple[tuple[str, ...], ...] = (
    ("avenir_mcp.values", "avenir_mcp.shared_state"),
    ("avenir_mcp.ynab_client",),
    ("avenir_mcp.ynab_requests", "avenir_mcp.tokens", "avenir_mcp.tools.logic"),
    ("avenir_mcp.confirmations", "avenir_mcp.oauth"),
    ("avenir_mcp.oplog",),
    ("avenir_mcp.mcp_surface",),
    ("avenir_mcp.tools",),
    ("avenir_mcp.avenir_site",),
)
"""Lowest first. A module may import from its own package, and from any package on a floor
below its own."""
SANDBOX = f"{PACKAGE}.sandbox"

SIDEWAYS_ALLOWED: frozenset[tuple[str, str]] = frozenset()
"""Pairs (importer, imported) of one floor allowed to meet: none are needed today."""


def _package_of(module: str) -> str | None:
    """The floor-table entry that holds `module` (the longest match), or None (not ours)."""
    names = [name for floor in FLOORS for name in floor]
    matches = [name for name in names if module == name or module.startswith(name + ".")]
    return max(matches, key=len) if matches else None


def _floor(package: str) -> int:
    return next(index for index, floor in enumerate(FLOORS) if package in floor)


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    late: bool


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def production_modules() -> list[Path]:
    roots = {Path(*name.split(".")[:2]) for floor in FLOORS for name in floor}
    return sorted(
        path
        for root in roots
        for path in (ROOT / root).rglob("*.py")
        if "migrations" not in path.parts and "__pycache__" not in path.parts
    )


def imports_of(path: Path) -> list[Import]:
    tree = ast.parse(path.read_text(), str(path))
    module = _module_name(path)
    found: list[Import] = []

    def visit(node: ast.AST, late: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = late
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inside = child.name != "ready"  # AppConfig.ready: Django's place for it
            if isinstance(child, ast.Import):
                found.extend(Import(module, alias.name, child.lineno, late) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.extend(
                    Import(module, f"{child.module}.{alias.name}", child.lineno, late)
                    for alias in child.names
                )
            visit(child, inside)

    visit(tree, False)
    return found


def _resolved(name: str) -> str:
    """`from pkg import module` names the module; `from module import thing` the module."""
    path = ROOT / Path(*name.split("."))
    if path.with_suffix(".py").exists() or (path / "__init__.py").exists():
        return name
    return name.rpartition(".")[0]


def layer_problems() -> list[str]:
    problems = []
    for path in production_modules():
        for found in imports_of(path):
            target = _resolved(found.imported)
            where = f"{path.relative_to(ROOT)}:{found.line} imports {target}"
            if found.late:
                problems.append(f"{where} inside a function (a late import)")
            if target == SANDBOX or target.startswith(f"{SANDBOX}."):
                if not found.importer.startswith(f"{PACKAGE}.avenir_site"):
                    problems.append(f"{where}: production code never imports the sandbox")
                continue
            mine, theirs = _package_of(found.importer), _package_of(target)
            if mine is None or theirs is None or mine == theirs:
                continue
            if _floor(theirs) > _floor(mine):
                problems.append(f"{where}: runs back up ({mine} is below {theirs})")
            elif _floor(theirs) == _floor(mine) and (mine, theirs) not in SIDEWAYS_ALLOWED:
                problems.append(f"{where}: sideways ({mine} and {theirs} share a floor)")
    return problems
