"""`AVENIR_MCP_CODES_TO=person`: the code goes to the person (the admin's page), never to the agent.

Through the SDK's real client and a real write tool (set_category_budget): the result keeps
`confirmation_required` and the preview, holds no code, and says where the person finds it;
the admin page shows it to staff, the audit API and everyone else never; the person's code,
given back by the agent, applies the change once. The default (`agent`) is unchanged.
"""

from __future__ import annotations

import json
import uuid

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import Client as DjangoClient

from avenir_mcp.confirmations import codes, messages
from tests.helpers.write_cases.set_category_budget import budget_case
from tests.mcp.answers import summary
from tests.writes.harness import MODERN, WriteCase, before, call, connected, content, expect_applied

pytestmark = pytest.mark.anyio

PAGE = "/admin/confirmations/pending/"


@pytest.fixture
def case(budget) -> WriteCase:
    return budget_case(budget)


@pytest.fixture
def codes_to_person(settings) -> None:
    settings.AVENIR_MCP_CODES_TO = "person"


def person_code(plan_id: str) -> str:
    [waiting] = [item for item in codes.store.pending() if item.plan_id == plan_id]
    assert waiting.code_for_person is not None
    return waiting.code_for_person


def browser(*, staff: bool) -> DjangoClient:
    user = User.objects.create_user(username=f"u-{uuid.uuid4().hex[:12]}", password="x", is_staff=staff)
    client = DjangoClient()
    client.force_login(user)
    return client


@pytest.mark.usefixtures("codes_to_person")
async def test_the_result_keeps_the_preview_holds_no_code_and_says_where_the_person_finds_it(case):
    start = await before(case)
    async with connected(MODERN) as client:  # a client that cannot ask: a code
        result = await call(client, case)

    answer = content(result)
    code = person_code(case.plan_id)
    assert answer["status"] == "confirmation_required"
    assert answer["confirmation"] is None
    assert answer["preview"] == (
        f"Budget Dining Out for {case.arguments['month']}-01: 120.00 → 150.00?\n"
        "- Dining Out: assigned 120.00 → 150.00; available 39.00 → 69.00"
    )
    assert answer["message"] == messages.person_code_message(_page_url())
    assert f"pending confirmations page ({_page_url()})" in answer["message"]
    assert answer["message"] == (  # the documented sentence, word for word
        "Nothing has changed yet. Show the preview to the person: if they agree, they will find the "
        f"confirmation code on the admin's pending confirmations page ({_page_url()}) and must give it to "
        "you; only then repeat this call with the same arguments plus confirmation set to that code "
        "(it works once, within 10 minutes). You cannot get the code yourself."
    )
    assert summary(result) == answer["message"]  # then the structured content, as compact JSON
    assert code not in json.dumps(answer)
    assert code not in result.content[0].text
    assert await case.state() == start.state


@pytest.mark.usefixtures("codes_to_person")
async def test_the_admin_page_shows_the_code_to_staff_and_the_api_and_others_never(case):
    async with connected(MODERN) as client:
        await call(client, case)
    code = person_code(case.plan_id)

    staff_page = await sync_to_async(lambda: browser(staff=True).get(PAGE))()
    api = await sync_to_async(lambda: browser(staff=True).get("/api/confirmations"))()
    not_staff = await sync_to_async(lambda: browser(staff=False).get(PAGE))()
    anonymous = await sync_to_async(lambda: DjangoClient().get(PAGE))()

    assert staff_page.status_code == 200
    assert f'<code class="code-for-person">{code}</code>' in staff_page.content.decode()
    assert api.status_code == 200
    assert case.plan_id in api.content.decode()
    assert code not in api.content.decode()
    for refused in (not_staff, anonymous):
        assert refused.status_code == 302
        assert code not in refused.content.decode()


@pytest.mark.usefixtures("codes_to_person")
async def test_the_persons_code_given_back_by_the_agent_applies_the_change(case):
    start = await before(case)
    async with connected(MODERN) as client:
        first = content(await call(client, case))
        code = person_code(case.plan_id)
        result = await call(client, case, confirmation=code)

    op = await expect_applied(case, start, result, confirmed_by="code")
    assert op.preview == first["preview"]
    assert not any(item.plan_id == case.plan_id for item in codes.store.pending())  # spent


async def test_by_default_the_code_goes_to_the_agent_as_documented(case, settings):
    assert settings.AVENIR_MCP_CODES_TO == "agent"
    async with connected(MODERN) as client:
        answer = content(await call(client, case))

    assert answer["status"] == "confirmation_required"
    assert answer["message"] == messages.code_message(answer["confirmation"])
    [waiting] = [item for item in codes.store.pending() if item.plan_id == case.plan_id]
    assert waiting.code_for_person is None
    page = await sync_to_async(lambda: browser(staff=True).get(PAGE))()
    assert answer["confirmation"] not in page.content.decode()


def _page_url() -> str:
    from django.conf import settings

    return f"{settings.AVENIR_MCP_SELF_URL.rstrip('/')}{PAGE}"
