"""Toolsets (docs/conventions.md#toolsets): the service offers those `AVENIR_MCP_TOOLSETS` names,
a token or an OAuth grant narrows them, and what each caller reads follows: its tools (one
outside is an unknown tool), its guide, its prompts and their completions."""

from __future__ import annotations

import io
import itertools
import re
import uuid

import anyio
import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client as BrowserClient
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import PromptReference

from avenir_mcp.mcp_surface.catalog import catalog_specs
from avenir_mcp.mcp_surface.http import McpHttpApp
from avenir_mcp.mcp_surface.registry import visible_tools
from avenir_mcp.mcp_surface.resources import guide_text
from avenir_mcp.mcp_surface.server import HttpServers, build_server, local_server
from avenir_mcp.oauth.models import SCOPE_READ, SCOPE_WRITE
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.tokens.models import McpToken
from avenir_mcp.values.toolsets import (
    ALL_TOOLSETS,
    ALWAYS_OFFERED,
    PURPOSES,
    TOOLSETS,
    narrowed,
    stored_toolsets,
    toolsets_named,
    toolsets_text,
)
from tests.helpers.mcp_http import MODES, instructions_of, mcp_over_http
from tests.helpers.names_in_text import names_out_of_sight
from tests.helpers.oauth import signed_in_client
from tests.helpers.stdio import stdio_server
from tests.mcp.sample_tools import SAMPLE_SPECS

TOKENS_URL = "/admin/tokens/mcptoken/"
GRANTS_URL = "/admin/oauth/oauthgrant/"

OPTIONAL = [name for name in TOOLSETS if name not in ALWAYS_OFFERED]
EVERY_CHOICE = [
    frozenset(combination) | ALWAYS_OFFERED
    for size in range(len(OPTIONAL) + 1)
    for combination in itertools.combinations(OPTIONAL, size)
]


def tools_of(toolsets: frozenset[str], *, writes: bool) -> set[str]:
    return {spec.name for spec in visible_tools(catalog_specs(), writes=writes, toolsets=toolsets)}


async def what_it_sees(client: Client) -> tuple[set[str], set[str], str]:
    tools = {tool.name for tool in (await client.list_tools()).tools}
    prompts = {prompt.name for prompt in (await client.list_prompts()).prompts}
    return tools, prompts, await instructions_of(client)


# --- the names ---------------------------------------------------------------------------------


def test_names_are_read_in_any_case_and_order_with_plans_and_operations_always_added():
    assert toolsets_named(" Insights ,accounts,") == {"insights", "accounts", "plans", "operations"}
    assert toolsets_named(" , ") == ALL_TOOLSETS == set(TOOLSETS)
    assert toolsets_text(toolsets_named("insights,accounts")) == "plans,accounts,insights,operations"


def test_an_unknown_name_is_refused_in_one_line_naming_the_toolsets():
    with pytest.raises(ValueError, match="unknown toolset") as refused:
        toolsets_named("insights, budget,core")

    assert str(refused.value) == (
        "unknown toolset 'budget', 'core'; the toolsets are plans, accounts, categories, transactions, "
        "payees, schedules, insights, operations."
    )


def test_a_token_or_grant_narrows_what_the_service_offers_and_never_widens_it():
    offered = toolsets_named("insights,accounts")

    assert narrowed(offered, None) == offered
    assert narrowed(offered, stored_toolsets("accounts,schedules")) == {"accounts", "plans", "operations"}
    assert narrowed(offered, stored_toolsets("schedules")) == ALWAYS_OFFERED


def test_a_stored_name_no_longer_known_is_left_out_and_blank_narrows_nothing():
    assert stored_toolsets("accounts,budget") == {"accounts"} | ALWAYS_OFFERED
    assert stored_toolsets(" ") is None


def test_every_tool_is_in_a_toolset_and_every_toolset_has_a_read_tool():
    """A toolset is offered exactly when the caller lists one of its tools, writes or not."""
    specs = catalog_specs()

    assert {spec.toolset for spec in specs} <= ALL_TOOLSETS
    assert {spec.toolset for spec in specs if spec.is_read_only} == ALL_TOOLSETS
    assert not {spec.name for spec in specs} & ALL_TOOLSETS  # a marker name is a tool or a toolset
    assert set(PURPOSES) == ALL_TOOLSETS  # docs/tools.md says what each is for


# --- the setting -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_setting_offers_its_toolsets_and_a_tool_outside_them_is_unknown(settings):
    settings.AVENIR_MCP_WRITE = True
    settings.AVENIR_MCP_TOOLSETS = toolsets_named("insights")
    offered = frozenset({"plans", "insights", "operations"})

    with anyio.fail_after(30):
        async with Client(local_server(Principal.local("toolsets"))) as client:
            tools, prompts, instructions = await what_it_sees(client)
            outside = await client.call_tool("list_accounts", {})
            nowhere = await client.call_tool("list_widgets", {})

    assert tools == tools_of(offered, writes=True)
    assert {"list_plans", "get_monthly_summary", "list_operations", "undo_operation"} <= tools
    assert prompts == {"monthly_review"}  # the others need a tool of another toolset
    assert instructions == guide_text(writes=True, toolsets=offered)
    assert (outside.is_error, outside.content[0].text) == (True, "Unknown tool: list_accounts")
    assert nowhere.content[0].text == "Unknown tool: list_widgets"


@pytest.mark.anyio
@pytest.mark.subprocesses
async def test_stdio_offers_the_toolsets_of_the_setting(sandbox_url):
    server = stdio_server(sandbox_url)
    server.env["AVENIR_MCP_TOOLSETS"] = "schedules"
    offered = frozenset({"plans", "schedules", "operations"})

    with anyio.fail_after(60):
        async with Client(server, mode="legacy") as client:
            tools, _prompts, instructions = await what_it_sees(client)

    assert (
        tools
        == tools_of(offered, writes=False)
        == {
            "list_plans",
            "list_scheduled_transactions",
            "list_operations",
        }
    )
    assert instructions == guide_text(writes=False, toolsets=offered)


# --- tokens and grants, over HTTP --------------------------------------------------------------


@pytest.fixture
def owner_user():
    return get_user_model().objects.create_superuser(username=f"owner-{uuid.uuid4().hex[:8]}", password="x")


@pytest.fixture
def owner(owner_user) -> BrowserClient:
    browser = BrowserClient()
    browser.force_login(owner_user)
    return browser


def issued(*, toolsets: str = "", read_only: bool = False) -> str:
    return McpToken.issue(f"toolsets {uuid.uuid4().hex[:12]}", read_only=read_only, toolsets=toolsets)[1]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_a_token_lists_and_calls_only_the_tools_of_its_toolsets(live_service, settings, mode):
    settings.AVENIR_MCP_WRITE = True
    narrow, full = await sync_to_async(issued)(toolsets="accounts"), await sync_to_async(issued)()
    offered = frozenset({"plans", "accounts", "operations"})

    with anyio.fail_after(60):
        async with mcp_over_http(live_service.url, narrow, mode=mode) as client:
            tools, prompts, instructions = await what_it_sees(client)
            outside = await client.call_tool("find_transactions", {})
        async with mcp_over_http(live_service.url, full, mode=mode) as client:
            all_tools, _prompts, _instructions = await what_it_sees(client)

    assert tools == tools_of(offered, writes=True)
    assert {"list_plans", "list_accounts", "reconcile_account", "list_operations", "undo_operation"} <= tools
    assert "find_transactions" not in tools
    assert prompts == {"reconcile"}
    assert instructions == guide_text(writes=True, toolsets=offered)
    assert outside.content[0].text == "Unknown tool: find_transactions"
    assert all_tools == tools_of(ALL_TOOLSETS, writes=True)


@pytest.mark.anyio
async def test_a_token_cannot_widen_what_the_setting_offers(live_service, settings):
    settings.AVENIR_MCP_WRITE = False
    settings.AVENIR_MCP_TOOLSETS = toolsets_named("insights,payees")
    token = await sync_to_async(issued)(toolsets="accounts,payees")

    with anyio.fail_after(60):
        async with mcp_over_http(live_service.url, token) as client:
            tools, _prompts, _instructions = await what_it_sees(client)

    assert tools == {"list_plans", "list_payees", "list_operations"}


def test_a_grants_toolsets_are_chosen_in_the_admin_and_its_tokens_see_only_those(
    live_service, owner, owner_user
):
    client, grant, access, _refresh = signed_in_client(
        live_service, owner_user, scope=f"{SCOPE_READ} {SCOPE_WRITE}"
    )
    page = owner.get(f"{GRANTS_URL}{grant.pk}/change/").content.decode()

    owner.post(f"{GRANTS_URL}{grant.pk}/change/", {"toolsets": ["schedules", "insights"]})
    grant.refresh_from_db()
    listing = owner.get(GRANTS_URL, {"q": client.name}).content.decode()
    tools = anyio.run(listed_tools, live_service.url, access)

    assert ticked(page) == list(TOOLSETS)  # a grant starts with every toolset
    assert grant.toolsets == "plans,schedules,insights,operations"
    assert "plans, schedules, insights, operations" in listing
    assert tools == tools_of(frozenset(grant.toolsets.split(",")), writes=False)  # writes off


def ticked(page: str) -> list[str]:
    """The toolsets whose box is ticked on an admin form."""
    boxes = re.findall(r'<input type="checkbox" name="toolsets" value="(\w+)"([^>]*)>', page)
    return [value for value, rest in boxes if "checked" in rest]


async def listed_tools(url: str, token: str) -> set[str]:
    with anyio.fail_after(60):
        async with mcp_over_http(url, token) as client:
            return {tool.name for tool in (await client.list_tools()).tools}


# --- the guide, prompts and completions follow -------------------------------------------------


@pytest.mark.anyio
async def test_for_every_choice_of_toolsets_the_guide_names_only_what_the_caller_sees():
    specs = catalog_specs()
    server = build_server(writes=True, local_principal=None, specs=specs)
    tools = {tool.name: tool.model_dump(by_alias=True, mode="json") for tool in await server.list_tools()}
    out_of_sight = {}

    for toolsets, writes in itertools.product(EVERY_CHOICE, (False, True)):
        seen = tools_of(toolsets, writes=writes)
        guide = guide_text(writes=writes, toolsets=toolsets, tools=frozenset(seen))
        names = names_out_of_sight(
            guide, [tools[name] for name in seen], specs, writes=writes, toolsets=toolsets
        )
        if names:
            out_of_sight[(toolsets_text(toolsets), writes)] = names

    assert len(EVERY_CHOICE) == 2 ** len(OPTIONAL)
    assert out_of_sight == {}


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("toolsets", "writes", "prompts"),
    [
        ("", True, {"classify_pending", "monthly_review", "reconcile", "plan_next_month"}),
        ("plans", True, set()),
        ("transactions", False, {"classify_pending"}),
        ("accounts", False, set()),  # reconciling needs reconcile_account, or find_transactions too
        ("accounts", True, {"reconcile"}),
        ("accounts,transactions", False, {"classify_pending", "reconcile"}),
        ("insights", False, {"monthly_review"}),
        ("insights,categories", False, {"monthly_review", "plan_next_month"}),
    ],
)
async def test_a_prompt_is_listed_only_with_the_tools_it_needs(toolsets, writes, prompts):
    server = build_server(writes=writes, toolsets=toolsets_named(toolsets), local_principal=Principal.local())

    with anyio.fail_after(30):
        async with Client(server, mode="legacy") as client:
            listed = {prompt.name for prompt in (await client.list_prompts()).prompts}

    assert listed == prompts


@pytest.mark.anyio
async def test_a_prompt_left_out_completes_nothing_and_says_which_prompts_there_are():
    server = build_server(
        writes=False, toolsets=toolsets_named("insights"), local_principal=Principal.local()
    )

    with anyio.fail_after(30):
        async with Client(server, mode="legacy") as client:
            with pytest.raises(MCPError) as refused:
                await client.complete(PromptReference(name="reconcile"), {"name": "account_id", "value": ""})

    assert refused.value.message == "No prompt 'reconcile'; prompts/list gives the prompts (monthly_review)."


# --- where tokens get their toolsets -----------------------------------------------------------


def test_create_mcp_token_limits_the_token_to_the_toolsets_given():
    name = f"cli {uuid.uuid4().hex[:8]}"
    err = io.StringIO()

    call_command(
        "create_mcp_token", name, "--toolsets", "Insights, accounts", stdout=io.StringIO(), stderr=err
    )
    everything = f"{name} all"
    call_command("create_mcp_token", everything, stdout=io.StringIO(), stderr=io.StringIO())

    assert McpToken.objects.get(name=name).toolsets == "plans,accounts,insights,operations"
    assert f"read-write MCP token '{name}' (toolsets plans, accounts, insights, operations; shown once" in (
        err.getvalue()
    )
    assert McpToken.objects.get(name=everything).toolsets == ""
    assert McpToken.objects.get(name=everything).chosen_toolsets is None


def test_create_mcp_token_refuses_an_unknown_toolset_and_issues_nothing():
    name = f"cli {uuid.uuid4().hex[:8]}"

    with pytest.raises(CommandError) as refused:
        call_command(
            "create_mcp_token", name, "--toolsets", "core", stdout=io.StringIO(), stderr=io.StringIO()
        )

    assert str(refused.value) == (
        "--toolsets: unknown toolset 'core'; the toolsets are plans, accounts, categories, transactions, "
        "payees, schedules, insights, operations."
    )
    assert not McpToken.objects.filter(name=name).exists()


def test_the_admin_creates_a_token_with_the_toolsets_ticked(owner):
    narrow, everything = f"admin {uuid.uuid4().hex[:8]}", f"admin {uuid.uuid4().hex[:8]}"
    form = owner.get(f"{TOKENS_URL}add/").content.decode()

    owner.post(f"{TOKENS_URL}add/", {"name": narrow, "scope": McpToken.SCOPE_READ, "toolsets": ["payees"]})
    owner.post(f"{TOKENS_URL}add/", {"name": everything, "scope": McpToken.SCOPE_READ, "toolsets": TOOLSETS})
    listing = owner.get(TOKENS_URL, {"q": everything}).content.decode()

    assert ticked(form) == list(TOOLSETS)
    assert McpToken.objects.get(name=narrow).toolsets == "plans,payees,operations"
    assert McpToken.objects.get(name=everything).toolsets == ""  # all: a toolset added later too
    assert ">all<" in listing


def test_a_refused_token_form_keeps_the_boxes_as_they_were_ticked(owner):
    refused = owner.post(
        f"{TOKENS_URL}add/", {"name": " ", "scope": McpToken.SCOPE_READ, "toolsets": ["payees"]}
    )

    assert refused.status_code == 200  # the form again, with its error
    assert ticked(refused.content.decode()) == ["payees"]


# --- the servers behind /mcp -------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_server_is_built_once_per_view_and_answers_only_while_running():
    servers = HttpServers.build(specs=SAMPLE_SPECS)
    service = McpHttpApp(servers)
    reader = Principal(token_id=1, name="reader", read_only=True, toolsets=ALWAYS_OFFERED)

    first, again = servers.for_principal(reader), servers.for_principal(reader)

    assert first is again
    with pytest.raises(RuntimeError, match=r"only inside McpHttpApp\.running"):
        await service.started(first)


@pytest.mark.anyio
async def test_two_first_requests_for_a_view_at_once_start_its_server_once():
    """The session manager of a server runs once per instance (the SDK refuses a second run):
    the second request waits for the first to start it, then finds it running."""
    servers = HttpServers.build(specs=SAMPLE_SPECS)
    service = McpHttpApp(servers)
    answers = []

    async def first_request(server) -> None:
        answers.append(await service.started(server))

    with anyio.fail_after(30):
        async with service.running(), anyio.create_task_group() as requests:
            narrow = servers.server(writes=False, toolsets=ALWAYS_OFFERED)  # built after start-up
            for _ in range(2):
                requests.start_soon(first_request, narrow)

    assert answers == [narrow, narrow]
