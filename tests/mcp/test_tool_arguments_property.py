"""Every tool of the registry, called with arguments Hypothesis builds from its own input schema.

Valid and hostile arguments (`tests.mcp.tool_arguments`), through the SDK's real client, on a
real plan whose ids the strategies know (and, explicitly, every date and month field at both
ends of the calendar, 0001-01-01 and 9999-12-31), as an agent whose client cannot ask (a confirmed tool
then issues a code at most). For every call:

- never an internal error (the SDK's bare `Error executing tool <name>`, a crash);
- arguments the schema accepts get a result or a one-line refusal;
- a confirmed tool (one taking `confirmation`) writes nothing: no write request reaches the
  sandbox and no operation is logged, whatever the arguments.

The tools are enumerated from the catalog, so a new tool is covered without a line here.
Examples per tool are kept modest (`EXAMPLES`) so the whole file runs in well under a minute.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, example, given, settings
from mcp import Client
from mcp.types import CallToolResult

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.server import build_server
from avenir_mcp.oplog.models import Operation
from avenir_mcp.sandbox import faults
from avenir_mcp.sandbox.models import Account, Category, Payee, Transaction
from avenir_mcp.tokens.auth import Principal
from tests.mcp.tool_arguments import arguments_for, edge_examples, hostile_arguments_for
from tests.writes.households import Household, household

EXAMPLES = 12
HOSTILE_EXAMPLES = 6
TOOL_NAMES = [spec.name for spec in catalog_specs()]
CALL_SECONDS = 30


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal() as running:
        yield running


@pytest.fixture(scope="module")
def writes_on() -> Iterator[None]:
    from django.conf import settings as django_settings

    previous = django_settings.AVENIR_MCP_WRITE
    django_settings.AVENIR_MCP_WRITE = True
    yield
    django_settings.AVENIR_MCP_WRITE = previous


@pytest.fixture(scope="module")
def agent(portal: BlockingPortal, live_service, writes_on) -> Iterator[Client]:
    server = build_server(writes=True, local_principal=Principal.local("property test"))
    with portal.wrap_async_context_manager(Client(server, mode="2026-07-28")) as client:
        yield client


@pytest.fixture(scope="module")
def schemas(agent: Client, portal: BlockingPortal) -> dict[str, dict[str, Any]]:
    listed = portal.call(agent.list_tools)
    return {tool.name: tool.input_schema for tool in listed.tools}


@pytest.fixture(scope="module")
def plan(live_service) -> Household:
    return household("Property test household")


@pytest.fixture(scope="module")
def known(plan: Household) -> tuple[str, ...]:
    """The plan's own ids, so drawn arguments reach past the id checks."""
    ids = [plan.id]
    for model in (Account, Category, Payee, Transaction):
        ids += [str(pk) for pk in model.objects.filter(plan_id=plan.id).values_list("pk", flat=True)[:20]]
    return tuple(ids)


def test_every_registered_tool_is_listed_and_covered(schemas):
    assert sorted(schemas) == sorted(TOOL_NAMES)


@pytest.mark.matrix
@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_valid_arguments_get_a_result_or_a_one_line_refusal(tool, agent, portal, schemas, known, plan):
    confirmed = "confirmation" in schemas[tool].get("properties", {})

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(arguments=arguments_for(schemas[tool], known))
    def check(arguments: dict[str, Any]) -> None:
        result = _called(agent, portal, tool, _in_plan(arguments, plan), confirmed=confirmed)
        if result.is_error:
            text = result.content[0].text
            assert "\n" not in text, f"{tool}({arguments}): {text}"

    for edge in edge_examples(schemas[tool], known):  # both ends of the calendar, every time
        check = example(arguments=edge)(check)
    check()


@pytest.mark.matrix
@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_hostile_arguments_are_refused_never_a_crash(tool, agent, portal, schemas, known, plan):
    confirmed = "confirmation" in schemas[tool].get("properties", {})

    @settings(
        max_examples=HOSTILE_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    @given(arguments=hostile_arguments_for(schemas[tool], known))
    def check(arguments: dict[str, Any]) -> None:
        _called(agent, portal, tool, _in_plan(arguments, plan), confirmed=confirmed)

    check()


def _in_plan(arguments: dict[str, Any], plan: Household) -> dict[str, Any]:
    """Most calls on the test plan (else the default plan would be asked for); some keep theirs."""
    if "plan_id" not in arguments or arguments["plan_id"] is None:
        return {**arguments, "plan_id": plan.id}
    return arguments


def _called(
    agent: Client, portal: BlockingPortal, tool: str, arguments: dict, *, confirmed: bool
) -> CallToolResult:
    mark = faults.last_request_id()
    operations = Operation.objects.count()
    result = portal.call(partial(_call, agent, tool, arguments))
    assert isinstance(result, CallToolResult)
    if result.is_error:
        text = result.content[0].text
        assert text != f"Error executing tool {tool}", f"internal error: {tool}({arguments!r})"
    if confirmed:
        writes = [f"{e.method} {e.path}" for e in faults.requests_since(mark) if e.method != "GET"]
        assert writes == [], f"{tool}({arguments!r}) wrote without a confirmation: {writes}"
        assert Operation.objects.count() == operations
    return result


async def _call(agent: Client, tool: str, arguments: dict) -> CallToolResult:
    with anyio.fail_after(CALL_SECONDS):
        return await agent.call_tool(tool, arguments)
