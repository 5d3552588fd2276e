"""Request state is sealed with the configured keys and bound to the principal that was asked."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult

from avenir_mcp.mcp_surface.server import local_server
from avenir_mcp.tokens.auth import Principal
from tests.mcp.sample_tools import SAMPLE_SPECS

pytestmark = pytest.mark.anyio

ARGUMENTS = {"label_id": "l7", "name": "Rent"}
YES = {"confirm": ElicitResult(action="accept", content={"value": True})}
PERSON = Principal.local("person")


async def ask(server) -> str:
    with anyio.fail_after(10):
        async with Client(server, mode="2026-07-28") as client:
            asked = await client.session.call_tool("rename_label", ARGUMENTS, allow_input_required=True)
    return asked.request_state


async def answer(server, request_state: str):
    with anyio.fail_after(10):
        async with Client(server, mode="2026-07-28") as client:
            return await client.session.call_tool(
                "rename_label",
                ARGUMENTS,
                input_responses=YES,
                request_state=request_state,
                allow_input_required=True,
            )


def refused_as_invalid_state() -> pytest.RaisesGroup:
    """The SDK refuses the state; in memory the error reaches the test inside task groups."""
    invalid = pytest.RaisesExc(MCPError, match="Invalid or expired requestState")
    return pytest.RaisesGroup(invalid, flatten_subgroups=True)


async def test_an_answer_in_flight_survives_a_new_server_instance(settings):
    settings.AVENIR_MCP_WRITE = True
    request_state = await ask(local_server(PERSON, specs=SAMPLE_SPECS))

    after_restart = await answer(local_server(PERSON, specs=SAMPLE_SPECS), request_state)

    assert after_restart.structured_content["status"] == "applied"


async def test_state_sealed_with_other_keys_is_refused(settings):
    settings.AVENIR_MCP_WRITE = True
    request_state = await ask(local_server(PERSON, specs=SAMPLE_SPECS))
    settings.AVENIR_MCP_REQUEST_STATE_KEYS = ["another key of at least thirty-two bytes"]

    with refused_as_invalid_state():
        await answer(local_server(PERSON, specs=SAMPLE_SPECS), request_state)


async def test_state_asked_of_one_person_is_refused_for_another(settings):
    settings.AVENIR_MCP_WRITE = True
    request_state = await ask(local_server(PERSON, specs=SAMPLE_SPECS))

    with refused_as_invalid_state():
        await answer(local_server(Principal.local("someone-else"), specs=SAMPLE_SPECS), request_state)
