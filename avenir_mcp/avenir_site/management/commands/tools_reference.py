"""`manage.py tools_reference [--check]`: write docs/tools.md from the tool registry.

The reference is what the server publishes to a read-write caller with writes on (the full
surface), rendered for people: each tool's title, whether it reads or writes (and, for a
write, whether the person confirms it), its toolset and annotations, its docstring (the
description the agent reads), its arguments with their types, bounds, defaults and
descriptions, and its result's fields; then the resources and the prompts. Nothing in it is
written by hand, so it cannot drift from the code: `tests/docs` fails when the committed file
differs from `render_reference()`. `--check` exits 1 instead of writing when it is stale.
"""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.server import build_server
from avenir_mcp.values.text import one_line
from avenir_mcp.values.toolsets import PURPOSES, TOOLSETS

REFERENCE = Path(settings.BASE_DIR) / "docs" / "tools.md"
COMMAND = ".venv/bin/python manage.py tools_reference"


class Command(BaseCommand):
    help = "Write docs/tools.md, the tools reference, from the tool registry (--check: only compare)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="Exit 1 if docs/tools.md is stale.")

    def handle(self, *args, check: bool, **options) -> None:
        text = render_reference()
        current = REFERENCE.read_text(encoding="utf-8") if REFERENCE.exists() else ""
        if check:
            if current != text:
                raise CommandError(f"docs/tools.md is stale; run: {COMMAND}")
            self.stdout.write("docs/tools.md is up to date.")
            return
        REFERENCE.parent.mkdir(exist_ok=True)
        REFERENCE.write_text(text, encoding="utf-8")
        self.stdout.write(f"Wrote {REFERENCE.relative_to(settings.BASE_DIR)}.")


def render_reference() -> str:
    """docs/tools.md as the registry makes it today."""
    return asyncio.run(_render())


async def _render() -> str:
    specs = catalog_specs()
    server = build_server(writes=True, local_principal=None, specs=specs)
    published = {tool.name: tool for tool in await server.list_tools()}
    resources = await server.list_resources()
    templates = await server.list_resource_templates()
    prompts = await server.list_prompts()

    reads = [spec for spec in specs if spec.is_read_only]
    writes = [spec for spec in specs if not spec.is_read_only]
    out = [
        "# Tools reference",
        "",
        "<!-- Generated from the tool registry by `manage.py tools_reference`: do not edit by hand. -->",
        "",
        "Generated from the tool registry (`avenir_mcp/mcp_surface/registry.py`, "
        f"`avenir_mcp/mcp_surface/catalog.py`): regenerate with `{COMMAND}`. Each tool's text is its "
        "docstring, which is also the description the agent reads. The rules every tool follows "
        "(arguments, results, refusals) are in [conventions.md](conventions.md); how a write is "
        "confirmed, in [confirmation.md](confirmation.md); undo, in [undo.md](undo.md).",
        "",
        "Read tools are always listed. Write tools are listed only with `AVENIR_MCP_WRITE=1` and a "
        "read-write token; a confirmed write takes the extra argument `confirmation`. A caller is "
        "listed only the tools of the [toolsets](#toolsets) it is offered.",
        "",
        "Read tools:",
        "",
        *(f"- [{spec.name}](#{spec.name}): {spec.title}" for spec in reads),
        "",
        "Write tools:",
        "",
        *(f"- [{spec.name}](#{spec.name}): {spec.title}" for spec in writes),
        "",
        "Also: [toolsets](#toolsets), [resources](#resources) and [prompts](#prompts).",
        "",
        "## Toolsets",
        "",
        "`AVENIR_MCP_TOOLSETS` names the toolsets the service offers (default: all), and a token or "
        "OAuth grant may narrow them in the admin ([conventions.md](conventions.md#toolsets)); `plans` "
        "and `operations` are always offered.",
        "",
        *(
            f"- `{toolset}`: {PURPOSES[toolset]}: "
            + ", ".join(f"[{spec.name}](#{spec.name})" for spec in specs if spec.toolset == toolset)
            for toolset in TOOLSETS
        ),
        "",
    ]
    for heading, group in (("Read tools", reads), ("Write tools", writes)):
        out += [f"## {heading}", ""]
        for spec in group:
            entry = published[spec.name].model_dump(by_alias=True, mode="json", exclude_none=True)
            out += _tool(spec, entry)
    out += ["## Resources", ""]
    for resource in resources:
        out += [f"### `{resource.uri}`", "", one_line(resource.description or ""), ""]
    for template in templates:
        out += [f"### `{template.uri_template}`", "", one_line(template.description or ""), ""]
    out += ["## Prompts", ""]
    for prompt in prompts:
        names = ", ".join(
            f"`{argument.name}`" + ("" if argument.required else " (optional)")
            for argument in prompt.arguments or []
        )
        out += [f"### {prompt.name}", "", one_line(prompt.description or ""), "", f"Arguments: {names}.", ""]
    return "\n".join(out).rstrip() + "\n"


def _tool(spec: Any, entry: dict) -> list[str]:
    schema = entry["inputSchema"]
    arguments = schema.get("properties", {})
    if spec.is_read_only:
        kind = "read"
    elif "confirmation" in arguments:
        kind = "write, confirmed by the person"
    else:
        kind = "write, acts at once (not confirmed)"
    hints = spec.annotations
    flags = [
        "read-only" if hints.read_only_hint else "changes the plan",
        "destructive" if hints.destructive_hint else "not destructive",
        "idempotent" if hints.idempotent_hint else "not idempotent",
        "open world" if hints.open_world_hint else "closed world",
    ]
    lines = [
        f"### {spec.name}",
        "",
        f"**{spec.title}**: {kind}; toolset `{spec.toolset}`; annotations: {', '.join(flags)}.",
        "",
        inspect.cleandoc(spec.description),
        "",
        "Arguments:",
        "",
    ]
    required = set(schema.get("required", []))
    definitions = schema.get("$defs", {})
    if not arguments:
        lines.append("- none")
    for name, field in arguments.items():
        lines += _argument(name, field, name in required, definitions, indent="")
    # Every tool publishes an output schema (tests/mcp/test_registry.py checks it).
    output = entry["outputSchema"]["properties"]
    lines += ["", "Result fields: " + ", ".join(f"`{name}`" for name in output) + "."]
    return [*lines, ""]


def _argument(name: str, field: dict, required: bool, definitions: dict, indent: str) -> list[str]:
    parts = [_type(field, definitions)]
    # An argument the schema does not require has a default in the tool's signature.
    parts.append("required" if required else f"default `{_json(field['default'])}`")
    description = one_line(field.get("description", ""))
    line = f"{indent}- `{name}`: {'; '.join(parts)}." + (f" {description}" if description else "")
    lines = [line]
    nested = _object_of(field, definitions)
    if nested is not None:
        nested_required = set(nested.get("required", []))
        for sub_name, sub_field in nested.get("properties", {}).items():
            lines += _argument(sub_name, sub_field, sub_name in nested_required, definitions, indent + "  ")
    return lines


def _object_of(field: dict, definitions: dict) -> dict | None:
    """The object a list argument holds (its fields are listed below it), if any."""
    for variant in field.get("anyOf", [field]):
        items = variant.get("items", {})
        if "$ref" in items:
            return definitions[items["$ref"].rsplit("/", 1)[1]]
    return None


def _type(field: dict, definitions: dict) -> str:
    variants = field.get("anyOf", [field])
    kinds = [variant.get("type") for variant in variants]
    nullable = "null" in kinds
    concrete = [variant for variant in variants if variant.get("type") != "null"]
    if {variant.get("type") for variant in concrete} == {"string", "integer", "number"}:
        text = "decimal amount, as a string or a number"
    else:
        text = " or ".join(_one_type(variant, definitions) for variant in concrete)
    return f"{text}, or null" if nullable else text


def _one_type(field: dict, definitions: dict) -> str:
    kind = field.get("type")
    if "enum" in field:
        return " \\| ".join(f"`{value}`" for value in field["enum"])
    if kind == "string":
        bounds = [f"at most {field['maxLength']} characters"] if "maxLength" in field else []
        if "pattern" in field:
            bounds.append(f"matching `{field['pattern']}`")
        return ", ".join(["string", *bounds])
    if kind == "integer" and "minimum" in field and "maximum" in field:
        return f"integer {field['minimum']}–{field['maximum']}"
    if kind == "array":
        items = field.get("items", {})
        what = "objects (fields below)" if "$ref" in items else f"{items.get('type', 'value')}s"
        # Every list argument is bounded (docs/conventions.md#arguments).
        low, high = field.get("minItems"), field["maxItems"]
        count = f"{low}–{high}" if low is not None else f"up to {high}"
        return f"list of {count} {what}"
    return kind or "value"


def _json(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
