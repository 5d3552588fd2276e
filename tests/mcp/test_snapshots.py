"""Each tool's `tools/list` entry is kept in tests/mcp/snapshots/<tool>.json and compared.

A changed description, schema or hint shows up in review like any API change. After an
intended change, regenerate with:  UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/mcp/test_snapshots.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest
from mcp import Client

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.server import build_server

SNAPSHOTS = Path(__file__).with_name("snapshots")
REGENERATE = "UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/mcp/test_snapshots.py"
UPDATING = os.environ.get("UPDATE_SNAPSHOTS") == "1"


async def published_entries() -> dict[str, dict]:
    """Every tool as a read-write caller with writes on sees it (the full surface)."""
    server = build_server(writes=True, local_principal=None, specs=catalog_specs())
    with anyio.fail_after(10):
        async with Client(server, mode="legacy") as client:
            tools = (await client.list_tools()).tools
    return {tool.name: tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools}


def as_file_text(entry: dict) -> str:
    return json.dumps(entry, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.anyio
async def test_every_tool_matches_its_snapshot():
    entries = await published_entries()
    if UPDATING:
        SNAPSHOTS.mkdir(exist_ok=True)
        for name, entry in entries.items():
            (SNAPSHOTS / f"{name}.json").write_text(as_file_text(entry), encoding="utf-8")

    missing = sorted(name for name in entries if not (SNAPSHOTS / f"{name}.json").exists())
    assert not missing, f"No snapshot for {', '.join(missing)}; review the entries, then run: {REGENERATE}"
    changed = sorted(
        name
        for name, entry in entries.items()
        if json.loads((SNAPSHOTS / f"{name}.json").read_text()) != entry
    )
    assert not changed, f"The published entry of {', '.join(changed)} changed; if intended, run: {REGENERATE}"


def test_every_snapshot_belongs_to_a_tool():
    names = {spec.name for spec in catalog_specs()}

    stale = sorted(path.stem for path in SNAPSHOTS.glob("*.json") if path.stem not in names)

    assert not stale, f"Snapshots of tools that no longer exist: {', '.join(stale)}; delete those files."
