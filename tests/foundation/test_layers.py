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

from tests.helpers.floors import FLOORS, ROOT, layer_problems


def test_imports_run_down_the_floors() -> None:
    assert layer_problems() == []


def test_the_floor_table_names_every_production_package() -> None:
    listed = {name.split(".")[0] for floor in FLOORS for name in floor}
    packages = {
        path.parent.name
        for path in ROOT.glob("*/__init__.py")
        if path.parent.name not in {"tests", "sandbox", "bench"}
    }
    assert packages == listed


def test_the_check_sees_an_import_that_runs_up(monkeypatch) -> None:
    """The empty list above means something: with the floors turned upside down, the same scan
    reports the imports the real order allows (the YNAB client's imports of `values`, the tools'
    of the MCP surface), so a scan that read no module, or no import, would fail here."""
    monkeypatch.setattr("tests.helpers.floors.FLOORS", tuple(reversed(FLOORS)))

    problems = layer_problems()

    assert any(p.startswith("ynab_client/") and "runs back up" in p for p in problems)
    assert any(p.startswith("tools/writes/") and "mcp_surface" in p for p in problems)
