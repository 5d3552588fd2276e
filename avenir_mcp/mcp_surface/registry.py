"""Every MCP tool's metadata, and the write gate, in one place.

A tool is an async function in a module listed in `mcp_surface.catalog`, registered with
`register_tool` (a read tool by the `read_tool(...)` decorator, a write tool by its declaration,
`tools.writes.flow.write_tool`). That records a `ToolSpec`: the name, a title, a toolset and the
MCP annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`), all
explicit.

The write gate is `writes_allowed(principal)` plus `visible_tools(specs, writes=...)`:
a tool whose own `readOnlyHint` is not true is a write tool, and a caller for whom writes
are not allowed gets a server on which it is not registered at all (see
`mcp_surface.server`), so it is neither listed nor callable, and no guide text names it.
Toolsets gate the same way (`toolsets_offered(principal)`, `visible_tools(..., toolsets=...)`):
a tool outside the caller's toolsets is not on its server (docs/conventions.md#toolsets).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

from django.conf import settings
from mcp.server.mcpserver.utilities.context_injection import find_context_parameter
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp.types import ToolAnnotations

from avenir_mcp.tokens.auth import Principal
from avenir_mcp.values.toolsets import ALL_TOOLSETS, TOOLSETS, Toolset, narrowed

TOOLSET_META_KEY = "avenir-mcp/toolset"
"""Where a tool's toolset is published in its `tools/list` entry (`_meta`)."""

_SPEC_ATTRIBUTE = "__avenir_tool_spec__"

_F = TypeVar("_F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ToolSpec:
    """A tool and everything the server publishes about it besides its signature."""

    fn: Callable[..., Any]
    name: str
    title: str
    toolset: str
    annotations: ToolAnnotations

    @property
    def description(self) -> str:
        """The docstring, which is what the agent reads."""
        return inspect.cleandoc(self.fn.__doc__ or "")

    @property
    def is_read_only(self) -> bool:
        """The gate's single criterion: the tool's own `readOnlyHint`. Unset counts as a write."""
        return self.annotations.read_only_hint is True

    @property
    def meta(self) -> dict[str, Any]:
        return {TOOLSET_META_KEY: self.toolset}


def metadata_problems(spec: ToolSpec) -> list[str]:
    """What is missing or wrong in a tool's metadata (empty when complete)."""
    problems = []
    if not spec.title.strip():
        problems.append("no title")
    if spec.toolset not in TOOLSETS:
        problems.append(f"toolset {spec.toolset!r} is not one of {', '.join(TOOLSETS)}")
    if not spec.description:
        problems.append("no docstring (the agent reads it as the description)")
    if not inspect.iscoroutinefunction(spec.fn):
        problems.append("not an async function")
    undescribed = _undescribed_arguments(spec.fn)
    if undescribed:
        problems.append(f"no description for argument(s) {', '.join(undescribed)} (Field(description=...))")
    hints = spec.annotations
    for hint in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
        if getattr(hints, hint) is None:
            problems.append(f"annotation {hint} is not set")
    if hints.read_only_hint and hints.destructive_hint:
        problems.append("a read-only tool cannot be destructive")
    return problems


def _undescribed_arguments(fn: Callable[..., Any]) -> list[str]:
    """Arguments the published input schema gives no description: a refused argument's own
    description is what the agent is told to give (`mcp_surface.presenting.argument_sentence`)."""
    context = find_context_parameter(fn)  # the SDK's own reading of the signature, as it publishes it
    arguments = func_metadata(fn, skip_names=[context] if context else [], structured_output=False)
    fields = arguments.arg_model.model_fields.items()
    return [field.alias or name for name, field in fields if not field.description]


def register_tool(
    fn: Callable[..., Any],
    *,
    title: str,
    toolset: Toolset,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool = False,
) -> None:
    """Record `fn` as a tool with this metadata; incomplete metadata raises `ValueError`.

    `destructive` and `idempotent` have no default: each tool states them
    (docs/tools.md#write-tools lists them per write tool). `open_world` stays False for tools
    that only act on the person's plan (a closed world)."""
    hints = ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )
    spec = ToolSpec(fn=fn, name=fn.__name__, title=title, toolset=toolset, annotations=hints)
    problems = metadata_problems(spec)
    if problems:
        raise ValueError(f"Tool {spec.name}: {'; '.join(problems)}.")
    setattr(fn, _SPEC_ATTRIBUTE, spec)


def read_tool(*, title: str, toolset: Toolset, open_world: bool = False) -> Callable[[_F], _F]:
    """Register a tool that never changes a plan. Always listed. (A write tool is declared with
    `tools.writes.flow.write_tool`.)"""

    def decorate(fn: _F) -> _F:
        register_tool(
            fn,
            title=title,
            toolset=toolset,
            read_only=True,
            destructive=False,
            idempotent=True,
            open_world=open_world,
        )
        return fn

    return decorate


def spec_of(fn: Callable[..., Any]) -> ToolSpec | None:
    return getattr(fn, _SPEC_ATTRIBUTE, None)


def tool_specs_in(modules: Iterable[ModuleType | str]) -> list[ToolSpec]:
    """Every tool the given modules define, in module then definition order."""
    specs: list[ToolSpec] = []
    seen: set[str] = set()
    for module in modules:
        loaded = importlib.import_module(module) if isinstance(module, str) else module
        for value in vars(loaded).values():
            spec = spec_of(value) if callable(value) else None
            if spec is None or spec.fn.__module__ != loaded.__name__:
                continue  # not a tool, or one imported from elsewhere (counted where defined)
            if spec.name in seen:
                raise ValueError(f"Two tools are named {spec.name}.")
            seen.add(spec.name)
            specs.append(spec)
    return specs


def writes_allowed(principal: Principal) -> bool:
    """Whether this caller may see and call write tools: writes on, and a read-write principal.

    Reads the setting on every call, so turning it off takes effect on the next request.
    """
    return bool(settings.AVENIR_MCP_WRITE) and not principal.read_only


def toolsets_offered(principal: Principal) -> frozenset[str]:
    """The toolsets this caller sees: the setting's, narrowed by its token or grant.

    Reads the setting on every call, as `writes_allowed` does."""
    return narrowed(frozenset(settings.AVENIR_MCP_TOOLSETS), principal.toolsets)


def visible_tools(
    specs: Sequence[ToolSpec], *, writes: bool, toolsets: frozenset[str] = ALL_TOOLSETS
) -> list[ToolSpec]:
    """The gate: the tools a caller may see, filtered on each tool's own `readOnlyHint` and
    toolset."""
    return [spec for spec in specs if (writes or spec.is_read_only) and spec.toolset in toolsets]


def hidden_tool_names(
    specs: Sequence[ToolSpec], *, writes: bool, toolsets: frozenset[str] = ALL_TOOLSETS
) -> set[str]:
    """Names of the tools the gate keeps from such a caller (for checks that none leaks)."""
    visible = {spec.name for spec in visible_tools(specs, writes=writes, toolsets=toolsets)}
    return {spec.name for spec in specs} - visible
