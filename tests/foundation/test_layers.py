"""The packages' floors (docs/architecture.md#modules): imports run one way, down.

Every production module is read with `ast` (nothing imported), and each import it makes,
at any depth, is checked against the floor of both modules:

- no import runs back up to a higher floor, and none goes sideways between packages of
  one floor unless the table allows it;
- no import inside a function (a late import hides a circle), except in an `AppConfig.ready`
  (Django's own place for what needs the models loaded);
- no production module imports `sandbox` (the YNAB stand-in), except the composition root
  (`avenir_site`), which serves it.

Imports under `if TYPE_CHECKING:` are for type checkers only and still must run down.
"""

from __future__ import annotations

from tests.helpers.floors import FLOORS, PACKAGE, ROOT, layer_problems


def test_imports_run_down_the_floors() -> None:
    assert layer_problems() == []


def test_the_floor_table_names_every_production_package() -> None:
    listed = {".".join(name.split(".")[:2]) for floor in FLOORS for name in floor}
    packages = {f"{PACKAGE}.{path.parent.name}" for path in (ROOT / PACKAGE).glob("*/__init__.py")}
    packages.discard(f"{PACKAGE}.sandbox")
    assert packages == listed


def test_the_checkout_holds_one_import_package_beside_the_tests() -> None:
    """Installed, the packages live under one name (`avenir_mcp`), which collides with nothing."""
    assert {path.parent.name for path in ROOT.glob("*/__init__.py")} == {PACKAGE, "tests"}


def test_the_check_sees_an_import_that_runs_up(monkeypatch) -> None:
    """The empty list above means something: with the floors turned upside down, the same scan
    reports the imports the real order allows (the YNAB client's imports of `values`, the tools'
    of the MCP surface), so a scan that read no module, or no import, would fail here."""
    monkeypatch.setattr("tests.helpers.floors.FLOORS", tuple(reversed(FLOORS)))

    problems = layer_problems()

    assert any(p.startswith("avenir_mcp/ynab_client/") and "runs back up" in p for p in problems)
    assert any(p.startswith("avenir_mcp/tools/writes/") and "mcp_surface" in p for p in problems)
