"""The .mcpb bundle (`manage.py mcp_bundle`, README: Publishing): its files, from the registry."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from mcp_surface.catalog import catalog_specs


def test_the_manifest_lists_every_tool_and_prompt_of_the_registry(tmp_path):
    wheel = tmp_path / "avenir_mcp-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")

    call_command("mcp_bundle", str(wheel), str(tmp_path / "files"))

    manifest = json.loads((tmp_path / "files" / "manifest.json").read_text())
    assert [tool["name"] for tool in manifest["tools"]] == [spec.name for spec in catalog_specs()]
    assert [prompt["name"] for prompt in manifest["prompts"]] == [
        "classify_pending",
        "monthly_review",
        "reconcile",
        "plan_next_month",
    ]
    reconcile = manifest["prompts"][2]
    assert reconcile["arguments"] == ["plan_id", "account_id", "bank_balance"]
    assert "${arguments.bank_balance}" in reconcile["text"]
    assert [key for key, option in manifest["user_config"].items() if option.get("sensitive")] == [
        "ynab_api_key"
    ]
    assert (tmp_path / "files" / "icon.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_it_refuses_a_file_that_is_no_wheel_and_a_folder_that_exists(tmp_path):
    wheel = tmp_path / "avenir_mcp-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")

    with pytest.raises(CommandError, match="is not a wheel: build one first"):
        call_command("mcp_bundle", str(tmp_path / "avenir_mcp.tar.gz"), str(tmp_path / "files"))
    with pytest.raises(CommandError, match="exists already: give a folder to create"):
        call_command("mcp_bundle", str(wheel), str(tmp_path))
