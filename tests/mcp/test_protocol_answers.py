"""The documented texts, exactly, and the protocol requests a server with prompts and resources
answers (issue: "The documented texts, exactly"), through the SDK's real client at both eras.

- a refusal is exactly its sentence (no `Error executing tool <name>: ` before it);
- arguments that break the input schema are one line naming the argument and what to give;
- `prompts/get` for an unknown prompt, a missing argument or a refused one: invalid params
  with a clear sentence, not an internal error;
- `completion/complete` offers plan, account and category ids by name prefix, keyed by the
  argument's name, for resource templates and any prompt;
- `logging/setLevel` is accepted at the handshake era (the 2026-07-28 protocol has no such method).
"""

from __future__ import annotations

import functools
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import anyio
import pytest
from django.conf import settings
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, PromptReference, ResourceTemplateReference

from avenir_mcp.mcp_surface.answers import AvenirServer
from avenir_mcp.mcp_surface.arguments import month_arg
from avenir_mcp.mcp_surface.plan_lookup import forget_plan_listing, open_plan, today
from avenir_mcp.mcp_surface.server import build_server
from avenir_mcp.tokens.auth import Principal
from avenir_mcp.values.refusal import Refusal
from tests.helpers.mcp_http import MODES
from tests.helpers.shared_plans import read_only
from tests.sandbox.plans import SmallPlan, small_plan

pytestmark = pytest.mark.anyio

ACCOUNTS = ResourceTemplateReference(uri="ynab://plans/{plan_id}/accounts")
CATEGORIES = ResourceTemplateReference(uri="ynab://plans/{plan_id}/categories")
REVIEW = PromptReference(name="review_account")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def home(live_service) -> Iterator[SmallPlan]:
    """A plan whose name no other plan starts with, made once: the module's tests only read it."""
    forget_plan_listing()  # the listing behind plan completion is reused for minutes
    plan = small_plan(f"Zebra {uuid.uuid4().hex[:10]} household")
    with read_only(plan.plan):
        yield plan


async def review_account(plan_id: str, account_id: str) -> str:
    """Review one account with the person (a prompt built like the product's own)."""
    snapshot = await open_plan(plan_id)
    if account_id not in snapshot.accounts:
        raise Refusal(f"No account '{account_id}' in this plan; list_accounts gives the valid ids.")
    return f"Review account {account_id} of plan {plan_id}."


@asynccontextmanager
async def connected(mode: str) -> AsyncIterator[Client]:
    """The catalog's server, with one prompt taking plan_id and account_id, for a local person."""
    with anyio.fail_after(30):
        async with Client(_with_a_prompt(tuple(settings.AVENIR_MCP_REQUEST_STATE_KEYS)), mode=mode) as client:
            yield client


@functools.cache
def _with_a_prompt(_keys: tuple[str, ...]) -> MCPServer:
    """Built once per set of request-state keys (it seals with those of its build time; a server
    keeps nothing of a session: `tests.helpers.servers`)."""
    server = build_server(writes=True, local_principal=Principal.local("protocol test"))
    server.prompt(name="review_account")(review_account)
    return server


# --- the documented texts ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_refusal_reaches_the_client_as_exactly_its_sentence(home, mode):
    with pytest.raises(Refusal) as documented:
        month_arg("sept", today())

    async with connected(mode) as client:
        refused = await client.call_tool("get_monthly_summary", {"plan_id": home.id, "month": "sept"})

    assert refused.is_error
    assert [block.text for block in refused.content] == [str(documented.value)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("arguments", "sentence"),
    [
        ({}, "Argument 'since_date' is missing. since_date: First day, YYYY-MM-DD (required)."),
        (
            {"since_date": 20260901},
            "Argument 'since_date': input should be a valid string. since_date: First day, YYYY-MM-DD "
            "(required).",
        ),
        (
            {"since_date": "2026-09-01", "limit": "all"},
            "Argument 'limit': input should be a valid integer, unable to parse string as an integer. "
            "limit: Items per page, 1-200.",
        ),
        (
            {"since_date": "2026-09-01", "account_ids": [7], "limit": 0},
            "Argument 'account_ids[0]': input should be a valid string. account_ids: Only these accounts: "
            "ids from list_accounts, at most 200 (an id given twice counts once). Omitted: every account. "
            "Also check: limit.",
        ),
        (
            {"since_date": "2026-09-01", "amount": ["-42.50"]},
            "Argument 'amount' has the wrong type. amount: Only this exact amount, with its sign, in "
            'currency units, as a decimal string like "-42.50" or a number: "-42.50" finds money out of '
            "42.50, never money in.",
        ),
    ],
    ids=["missing", "wrong type", "not a number", "two arguments", "no accepted type"],
)
async def test_arguments_that_break_the_schema_are_one_line_naming_the_argument(mode, arguments, sentence):
    async with connected(mode) as client:
        refused = await client.call_tool("find_transactions", arguments)

    assert refused.is_error
    assert [block.text for block in refused.content] == [sentence]


async def test_a_nested_argument_is_named_by_its_path():
    async with connected("2026-07-28") as client:
        refused = await client.call_tool("apply_categories", {"assignments": [{"transaction_id": "t1"}]})

    assert refused.content[0].text == (
        "Argument 'assignments[0].category_id' is missing. "
        "assignments: 1-200 {transaction_id, category_id}, each transaction once."
    )


@pytest.mark.parametrize("mode", MODES)
async def test_a_crash_keeps_its_details_on_the_server(mode):
    server = build_server(writes=False, local_principal=Principal.local("protocol test"))

    async def leaky() -> str:
        """A tool with a bug."""
        raise RuntimeError("database password is hunter2")

    server.add_tool(leaky, name="leaky")
    with anyio.fail_after(30):
        async with Client(server, mode=mode) as client:
            crashed = await client.call_tool("leaky", {})

    assert crashed.is_error
    assert [block.text for block in crashed.content] == ["Error executing tool leaky"]


# --- prompts/get -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_prompt_is_a_clear_invalid_params_error(mode, caplog):
    async with connected(mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.get_prompt("no_such_prompt", {"plan_id": "x"})

    assert [record.getMessage() for record in caplog.records if record.exc_info] == []  # no traceback

    assert refused.value.error.code == INVALID_PARAMS
    assert refused.value.error.message.startswith(
        "No prompt 'no_such_prompt'; prompts/list gives the prompts ("
    )
    assert "review_account" in refused.value.error.message


@pytest.mark.parametrize("mode", MODES)
async def test_a_prompt_missing_an_argument_or_refusing_one_says_so_clearly(home, mode):
    async with connected(mode) as client:
        with pytest.raises(MCPError) as missing:
            await client.get_prompt("review_account", {"plan_id": home.id})
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("review_account", {"plan_id": home.id, "account_id": "a1x"})
        good = {"plan_id": home.id, "account_id": home.checking}
        rendered = await client.get_prompt("review_account", good)

    assert (missing.value.error.code, missing.value.error.message) == (
        INVALID_PARAMS,
        "The review_account prompt needs account_id; give it and ask again.",
    )
    assert (unknown.value.error.code, unknown.value.error.message) == (
        INVALID_PARAMS,
        "No account 'a1x' in this plan; list_accounts gives the valid ids.",
    )
    assert rendered.messages[0].content.text == f"Review account {home.checking} of plan {home.id}."


async def test_a_plain_prompt_function_runs_in_a_worker_thread_and_its_refusal_is_answered():
    # The refusal wrapper once awaited whatever the prompt function returned: a plain (not
    # async) one, which the SDK allows and runs in a worker thread, crashed on every call.
    server = AvenirServer(name="plain prompt")
    ran_in: list[str] = []

    def greet(name: str) -> str:
        """Greets someone by name."""
        ran_in.append(threading.current_thread().name)
        if name == "nobody":
            raise Refusal("Give a name, not nobody.")
        return f"Hello {name}."

    server.prompt(name="greet")(greet)

    rendered = await server.get_prompt("greet", {"name": "Ann"})
    with pytest.raises(MCPError) as refused:
        await server.get_prompt("greet", {"name": "nobody"})

    assert [message.content.text for message in rendered.messages] == ["Hello Ann."]
    assert (refused.value.error.code, refused.value.error.message) == (
        INVALID_PARAMS,
        "Give a name, not nobody.",
    )
    assert len(ran_in) == 2
    assert threading.main_thread().name not in ran_in


# --- completion/complete ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_plan_id_is_completed_from_the_start_of_the_plans_name(home, mode):
    prefix = home.plan.name[:12].lower()  # "zebra <hex>": only this plan's name starts so

    async with connected(mode) as client:
        by_name = await client.complete(ACCOUNTS, {"name": "plan_id", "value": prefix})
        by_id = await client.complete(CATEGORIES, {"name": "plan_id", "value": home.id[:13]})
        in_prompt = await client.complete(REVIEW, {"name": "plan_id", "value": prefix})
        # No test names a plan with a word starting "last": only the alias starts so.
        alias = await client.complete(ACCOUNTS, {"name": "plan_id", "value": "last"})

    assert by_name.completion.values == [home.id]
    assert by_id.completion.values == [home.id]
    assert in_prompt.completion.values == [home.id]
    assert alias.completion.values == ["last-used"]


@pytest.mark.parametrize("mode", MODES)
async def test_account_and_category_ids_are_completed_in_the_plan_chosen(home, mode):
    chosen = {"plan_id": home.id}

    async with connected(mode) as client:
        checking = await client.complete(REVIEW, {"name": "account_id", "value": "Chec"}, chosen)
        every_open = await client.complete(REVIEW, {"name": "account_id", "value": ""}, chosen)
        dining = await client.complete(REVIEW, {"name": "category_id", "value": "din"}, chosen)
        by_word = await client.complete(REVIEW, {"name": "category_id", "value": "out"}, chosen)
        internal = await client.complete(REVIEW, {"name": "category_id", "value": "Ready"}, chosen)

    snapshot = await open_plan(home.id)
    assert checking.completion.values == [home.checking]
    assert set(every_open.completion.values) == {a.id for a in snapshot.accounts.values() if not a.closed}
    assert dining.completion.values == [home.dining] == by_word.completion.values
    assert internal.completion.values == []  # Ready to Assign is YNAB's own: never offered


async def test_an_argument_that_is_no_id_gets_no_values_and_an_unreadable_plan_none_either(home):
    async with connected("2026-07-28") as client:
        other = await client.complete(REVIEW, {"name": "bank_balance", "value": "1"}, {"plan_id": home.id})
        unknown_plan = await client.complete(REVIEW, {"name": "account_id", "value": ""}, {"plan_id": "nope"})

    assert other.completion.values == []
    assert unknown_plan.completion.values == []


@pytest.mark.parametrize("mode", MODES)
async def test_the_server_declares_completions(mode):
    async with connected(mode) as client:
        if mode == "legacy":
            completions = client.server_capabilities.completions
        else:  # a client pinned to 2026-07-28 skips discovery: ask for it
            discovered = await client.session.send_discover(client.session.protocol_version)
            completions = discovered["capabilities"].get("completions")

    assert completions is not None


# --- logging/setLevel ----------------------------------------------------------------------------------


async def test_logging_set_level_is_accepted_at_the_handshake_era():
    async with connected("legacy") as client:
        declared = client.server_capabilities.logging
        answer = await client.set_logging_level("warning")

    assert declared is not None
    assert answer.model_dump(exclude_none=True) == {}
