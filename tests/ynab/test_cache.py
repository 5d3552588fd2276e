"""The plan cache against the live sandbox: one full load, then one delta request per use.

Every change here goes through the sandbox's API over HTTP (mostly the client's own write
methods); the merged snapshot must then equal a snapshot built from a fresh full export.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import anyio
import httpx2
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings

from avenir_mcp.sandbox.models import Account, Plan, Transaction
from avenir_mcp.ynab_client import plan_snapshot
from avenir_mcp.ynab_client.cache import PlanCache
from avenir_mcp.ynab_client.client import YnabClient
from avenir_mcp.ynab_client.errors import MalformedAnswer, YnabError
from avenir_mcp.ynab_client.pacing import Pacer, RequestKind, request_kind
from tests.helpers.plan_copies import demo_plan_copy
from tests.ynab import plan_json as pj
from tests.ynab.compare import differences, index_errors

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("no_faults")]


async def _sandbox(client, method: str, path: str, body: dict | None = None) -> dict:
    """A write the client has no method for (accounts, schedules), over HTTP all the same."""
    async with httpx2.AsyncClient(base_url=client.base_url, timeout=10) as http:
        answer = await http.request(
            method, path, json=body, headers={"Authorization": f"Bearer {settings.SANDBOX_TOKEN}"}
        )
    assert answer.is_success, answer.text
    return answer.json()["data"]


async def test_the_first_use_loads_the_whole_plan_in_one_request(client, cache, demo_plan_id, sandbox_log):
    await sandbox_log.mark()

    snapshot = await cache.snapshot(client, demo_plan_id)

    [request] = await sandbox_log.requests(demo_plan_id)
    assert (request.method, request.query) == ("GET", "")
    live = await sync_to_async(
        lambda: Transaction.objects.filter(plan_id=demo_plan_id, deleted=False).count()
    )()
    assert snapshot.plan_id == demo_plan_id
    assert len(snapshot.transactions) == live
    account = await sync_to_async(lambda: Account.objects.filter(plan_id=demo_plan_id).first())()
    assert snapshot.accounts[account.id].balance == account.balance
    assert snapshot.settings.currency_format is not None
    assert index_errors(snapshot) == []


async def test_a_later_use_sends_one_delta_request_and_merges_changes_of_every_kind(
    client, cache, demo_plan_id, sandbox_log, either_store
):
    before = await cache.snapshot(client, demo_plan_id)
    await _change_every_kind(client, before)
    await sandbox_log.mark()

    merged = await cache.snapshot(client, demo_plan_id)

    [request] = await sandbox_log.requests(demo_plan_id)
    assert request.query == f"last_knowledge_of_server={before.server_knowledge}"
    fresh = await PlanCache().snapshot(client, demo_plan_id)
    assert merged.server_knowledge > before.server_knowledge
    assert differences(merged, fresh) == []
    assert index_errors(merged) == []
    assert "Holiday fund" in {account.name for account in merged.accounts.values()}
    assert any(merged.subtransactions_of(t.id) for t in merged.transactions_with_payee(_payee_named(merged)))


async def _change_every_kind(client, snapshot) -> None:
    """Create, update and delete entities of each kind YNAB's API can write."""
    plan = snapshot.plan_id
    checking = next(a for a in snapshot.accounts.values() if a.type == "checking" and not a.closed)
    group = next(
        g
        for g in snapshot.category_groups.values()
        if not g.internal and g.name != "Credit Card Payments" and len(snapshot.categories_in_group(g.id)) > 1
    )
    spendable = [c for c in snapshot.categories_in_group(group.id) if not c.hidden]
    victim = next(t for t in snapshot.transactions_in_account(checking.id) if not snapshot.is_split(t))
    edited = next(t for t in snapshot.transactions_in_account(checking.id) if t.id != victim.id)
    split = next(t for t in snapshot.transactions.values() if snapshot.is_split(t))
    payee = next(p for p in snapshot.payees.values() if p.transfer_account_id is None)
    today = datetime.now(UTC).date().isoformat()

    await _sandbox(
        client,
        "POST",
        f"/plans/{plan}/accounts",
        {"account": {"name": "Holiday fund", "type": "savings", "balance": 250_000}},
    )
    new_group = await _sandbox(
        client, "POST", f"/plans/{plan}/category_groups", {"category_group": {"name": "Test group"}}
    )
    await _sandbox(
        client,
        "PATCH",
        f"/plans/{plan}/category_groups/{group.id}",
        {"category_group": {"name": "Renamed group"}},
    )
    await client.post_category(
        plan, {"name": "Piano lessons", "category_group_id": new_group["category_group"]["id"]}
    )
    await client.patch_category(plan, spendable[0].id, {"name": "Renamed category"})
    await client.patch_month_category(plan, "current", spendable[1].id, 123_450)
    await client.patch_payee(plan, payee.id, "Renamed payee")
    lines = [
        {"amount": -10_000, "category_id": spendable[0].id},
        {"amount": -20_000, "category_id": spendable[1].id, "memo": "line two"},
    ]
    new = {
        "account_id": checking.id,
        "date": today,
        "payee_name": "Corner Cafe",
        "category_id": spendable[0].id,
    }
    new_split = {"account_id": checking.id, "date": today, "payee_id": payee.id, "subtransactions": lines}
    await client.post_transactions(plan, [{**new, "amount": -12_340}, {**new_split, "amount": -30_000}])
    await client.patch_transactions(
        plan, [{"id": edited.id, "memo": "edited", "flag_color": "red", "approved": True}]
    )
    await client.delete_transaction(plan, victim.id)
    await client.delete_transaction(plan, split.id)
    await _change_schedules(client, snapshot, checking.id, payee.id)


async def _change_schedules(client, snapshot, account_id: str, payee_id: str) -> None:
    plan = snapshot.plan_id
    first, second = sorted(snapshot.scheduled_transactions)[:2]
    next_month = (datetime.now(UTC).date() + timedelta(days=31)).isoformat()
    body = {
        "account_id": account_id,
        "date": next_month,
        "amount": -5_000,
        "payee_id": payee_id,
        "frequency": "monthly",
    }
    await _sandbox(client, "POST", f"/plans/{plan}/scheduled_transactions", {"scheduled_transaction": body})
    await _sandbox(
        client,
        "PUT",
        f"/plans/{plan}/scheduled_transactions/{first}",
        {"scheduled_transaction": {**body, "amount": -7_000}},
    )
    await _sandbox(client, "DELETE", f"/plans/{plan}/scheduled_transactions/{second}")  # fmt: skip


def _payee_named(snapshot) -> str:
    return next(p.id for p in snapshot.payees.values() if p.name == "Renamed payee")


async def test_twenty_concurrent_uses_share_one_request(client, cache, demo_plan_id, sandbox_log):
    await cache.snapshot(client, demo_plan_id)
    await client.patch_month_category(
        demo_plan_id, "current", _any_category(await cache.snapshot(client, demo_plan_id)), 1_000
    )
    await sandbox_log.mark()

    with anyio.fail_after(30):
        snapshots = await asyncio.gather(*(cache.snapshot(client, demo_plan_id) for _ in range(20)))

    assert len(await sandbox_log.requests(demo_plan_id)) == 1
    assert all(snapshot is snapshots[0] for snapshot in snapshots)


async def test_twenty_concurrent_first_uses_load_the_plan_once(client, cache, demo_plan_id, sandbox_log):
    await sandbox_log.mark()

    with anyio.fail_after(30):
        snapshots = await asyncio.gather(*(cache.snapshot(client, demo_plan_id) for _ in range(20)))

    [request] = await sandbox_log.requests(demo_plan_id)
    assert request.query == ""
    assert {snapshot.server_knowledge for snapshot in snapshots} == {snapshots[0].server_knowledge}


async def test_a_snapshot_is_dated_when_its_request_was_sent_not_when_the_answer_came(
    client, cache, demo_plan_id, freshness_clock, monkeypatch
):
    """`as_of` is the conservative time: a change YNAB got while the request was on its way may
    be missing from the answer, so the snapshot never claims to be newer than the sending."""
    asked = client.get_plan

    async def answering_slowly(*args, **kwargs):
        answer = await asked(*args, **kwargs)
        freshness_clock.now += 2.5  # the answer takes its time
        return answer

    monkeypatch.setattr(client, "get_plan", answering_slowly)
    export_sent = freshness_clock.wall_time()
    loaded = await cache.snapshot(client, demo_plan_id)
    delta_sent = freshness_clock.wall_time()
    refreshed = await cache.snapshot(client, demo_plan_id)

    assert (loaded.as_of, refreshed.as_of) == (export_sent, delta_sent)
    assert refreshed.as_of < freshness_clock.wall_time()


def _any_category(snapshot) -> str:
    return next(c.id for c in snapshot.categories.values() if not c.internal)


async def test_reads_inside_the_window_ask_nothing_until_its_clock_passes_it_or_a_write_ends_it(
    client, cache, demo_plan_id, sandbox_log, settings, freshness_clock, either_store
):
    """The window and the write marks share one clock (`ynab_client.clock`): standing still here,
    a write at the very instant of the sync still ends the window."""
    settings.AVENIR_MCP_FRESHNESS_SECONDS = 10
    synced = await cache.snapshot(client, demo_plan_id)
    await sandbox_log.mark()

    freshness_clock.now += 9.5
    inside = await cache.snapshot(client, demo_plan_id)
    asked_inside = await sandbox_log.requests(demo_plan_id)
    freshness_clock.now += 0.5
    after = await cache.snapshot(client, demo_plan_id)
    await client.patch_month_category(demo_plan_id, "current", _any_category(after), 2_000)
    written = await cache.snapshot(client, demo_plan_id)
    with request_kind(RequestKind.WRITE):  # a write's read always syncs, window or not
        await cache.snapshot(client, demo_plan_id)

    assert inside is synced
    assert asked_inside == []
    assert written.server_knowledge > after.server_knowledge
    asked = await sandbox_log.requests(demo_plan_id)
    queries = [request.query for request in asked if request.method == "GET"]
    assert len(queries) == 3
    assert all(query.startswith("last_knowledge_of_server=") for query in queries)


async def test_a_use_after_a_write_sees_the_write(client, cache, demo_plan_id):
    snapshot = await cache.snapshot(client, demo_plan_id)
    category = _any_category(snapshot)

    await client.patch_month_category(demo_plan_id, snapshot.month_keys()[-2], category, 777_000)
    after = await cache.snapshot(client, demo_plan_id)

    assert after.month_category(snapshot.month_keys()[-2], category).budgeted == 777_000


async def test_last_used_resolves_to_the_real_plan_and_never_mixes_two_plans(client, cache, sandbox_log):
    first = await sync_to_async(demo_plan_copy)()
    second = await sync_to_async(demo_plan_copy)()
    await client.get_plan(first.id, 10**9)  # opening a plan makes it YNAB's last-used

    cold = await cache.snapshot(client, "last-used")
    await client.patch_month_category(first.id, "current", _any_category(cold), 4_000)
    await sandbox_log.mark()
    warm = await cache.snapshot(client, "last-used")
    one_delta = await sandbox_log.requests("/plans/")

    await client.get_plan(second.id, 10**9)  # now the other plan is the last used
    await sandbox_log.mark()
    switched = await cache.snapshot(client, "last-used")
    after_switch = await sandbox_log.requests("/plans/")

    assert (cold.plan_id, warm.plan_id, switched.plan_id) == (first.id, first.id, second.id)
    assert [(r.path.rsplit("/", 1)[1], r.query) for r in one_delta] == [
        ("last-used", f"last_knowledge_of_server={cold.server_knowledge}")
    ]
    assert [(r.path.rsplit("/", 1)[1], r.query) for r in after_switch] == [
        ("last-used", f"last_knowledge_of_server={warm.server_knowledge}"),
        (second.id, ""),  # the answer about another plan is discarded; that plan is read fully
    ]
    assert differences(switched, await PlanCache().snapshot(client, second.id)) == []
    assert differences(warm, await PlanCache().snapshot(client, first.id)) == []


async def test_the_entry_point_uses_the_configured_sandbox_and_shows_in_the_cache_state(demo_plan_id):
    snapshot = await plan_snapshot(demo_plan_id)

    from avenir_mcp.ynab_client import plan_cache_state

    [state] = [state for state in plan_cache_state() if state.plan_id == demo_plan_id]
    assert (state.name, state.server_knowledge) == (snapshot.name, snapshot.server_knowledge)
    assert state.counts["transactions"] == len(snapshot.transactions)
    assert state.loaded_at <= state.last_refresh_at


async def test_an_unknown_plan_is_a_ynab_404_that_says_which_ids_to_use(client, cache):
    with pytest.raises(YnabError) as refused:
        await cache.snapshot(client, "0a1b2c3d-0000-4000-8000-000000000000")

    assert (refused.value.status, refused.value.error_id) == (404, "404.2")
    assert "list_plans" in refused.value.message
    assert not refused.value.retryable


@pytest.mark.parametrize("asked", ["a-plan-id", "last-used"])
async def test_a_plan_id_from_ynab_that_could_change_a_url_is_never_used(cache, asked):
    """YNAB's answer names the plan; an id that could climb a path never becomes a key or a URL."""

    def ynab(request: httpx2.Request) -> httpx2.Response:  # api.ynab.com, answering a broken id
        plan = {"id": "../user", "name": "Odd", "server_knowledge": 1}
        return httpx2.Response(200, json={"data": {"plan": plan, "server_knowledge": 1}})

    odd = YnabClient(
        base_url="https://api.ynab.com/v1",
        token="t",
        pacer=Pacer(history=False),
        delays=(0, 0),
        transport=httpx2.MockTransport(ynab),
    )

    with pytest.raises(MalformedAnswer, match="named a plan id this service cannot use"):
        await cache.snapshot(odd, asked)

    assert cache.states() == []


# --- Timing between refreshes, and answers YNAB should never give (api.ynab.com mocked) -------


class MockYnab:
    """api.ynab.com serving one `World` plan (and its `last-used` alias) under an id of its
    own. A GET can be held (`hold()`) after its answer is computed, so a test decides when a
    refresh ends; writes change the world and report its new knowledge, as YNAB's do."""

    def __init__(self, transactions: int = 0) -> None:
        self.plan_id = str(uuid.uuid4())
        self.world = pj.World(plan_id=self.plan_id)
        self.world.put("accounts", pj.account("a0"))
        for n in range(transactions):
            self.world.put("transactions", pj.transaction(f"t{n}", "a0", date="2026-03-01", amount=-n))
        self.world.commit()
        self.queries: list[str] = []
        self.answers: list[Callable[[dict], dict]] = []  # changes made to the next GET answers
        self._holds: list[tuple[asyncio.Event, asyncio.Event]] = []

    def hold(self) -> tuple[asyncio.Event, asyncio.Event]:
        """(reached, release): the next GET is answered only once `release` is set."""
        gate = (asyncio.Event(), asyncio.Event())
        self._holds.append(gate)
        return gate

    def client(self) -> YnabClient:
        return YnabClient(
            base_url="https://api.ynab.com/v1",
            token="t",
            pacer=Pacer(history=False),
            delays=(0, 0),
            transport=httpx2.MockTransport(self._answer),
        )

    async def _answer(self, request: httpx2.Request) -> httpx2.Response:
        if request.method != "GET":  # a write: one more account, as any change would be
            self.world.put("accounts", pj.account(f"a{self.world.knowledge}"))
            return httpx2.Response(200, json={"data": {"server_knowledge": self.world.commit()}})
        since = request.url.params.get("last_knowledge_of_server")
        self.queries.append(request.url.path.rsplit("/", 1)[1] + (f"?{since}" if since else ""))
        data = self.world.export() if since is None else self.world.delta_since(int(since))
        if self.answers:
            data = self.answers.pop(0)(data)
        if self._holds:
            reached, release = self._holds.pop(0)
            reached.set()
            await release.wait()
        return httpx2.Response(200, json={"data": data})


async def _a_write(client: YnabClient, plan_id: str) -> int:
    answer = await client.patch_payee(plan_id, "0a1b2c3d-0000-4000-8000-000000000001", "Renamed")
    return answer["server_knowledge"]


async def test_a_use_that_joined_a_refresh_older_than_its_write_refreshes_once_more(cache):
    ynab = MockYnab()
    client, plan_id = ynab.client(), ynab.plan_id
    first = await cache.snapshot(client, plan_id)
    reached, release = ynab.hold()
    before_the_write = asyncio.create_task(cache.snapshot(client, plan_id))
    await reached.wait()  # that refresh's answer is computed: it will not show the write

    written = await _a_write(client, plan_id)
    joined = asyncio.create_task(cache.snapshot(client, plan_id))
    await asyncio.sleep(0)
    release.set()
    with anyio.fail_after(30):
        results = await asyncio.gather(before_the_write, joined)

    assert ynab.queries == [
        plan_id,
        f"{plan_id}?{first.server_knowledge}",
        f"{plan_id}?{first.server_knowledge}",
    ]
    assert [snapshot.server_knowledge for snapshot in results] == [written, written]
    assert all(len(snapshot.accounts) == 2 for snapshot in results)


async def test_a_refresh_that_ends_after_a_newer_one_keeps_the_newer_snapshot(cache):
    ynab = MockYnab()
    client, plan_id = ynab.client(), ynab.plan_id
    await cache.snapshot(client, plan_id)
    ynab.world.put("accounts", pj.account("a1"))
    ynab.world.commit()
    reached, release = ynab.hold()
    slow_read = asyncio.create_task(cache.snapshot(client, plan_id))
    await reached.wait()
    ynab.world.put("accounts", pj.account("a2"))
    newest = ynab.world.commit()

    with request_kind(RequestKind.WRITE):  # a write's read does not join the read's refresh
        fresh = await cache.snapshot(client, plan_id)
    release.set()
    with anyio.fail_after(30):
        late = await slow_read

    assert fresh.server_knowledge == newest
    assert late is fresh  # the older answer, merged last, does not replace the newer snapshot
    assert [state.server_knowledge for state in cache.states()] == [newest]


async def test_an_answer_about_another_plan_is_never_merged(cache):
    ynab = MockYnab()
    client, plan_id = ynab.client(), ynab.plan_id
    await cache.snapshot(client, plan_id)
    other = "5f0c2a8e-0000-4000-8000-0000000beef0"
    ynab.answers.append(lambda data: {**data, "plan": {**data["plan"], "id": other}})

    with pytest.raises(YnabError) as refused:
        await cache.snapshot(client, plan_id)

    assert refused.value.message == f"YNAB answered with plan {other} for plan {plan_id}; nothing was merged."
    [state] = cache.states()
    assert state.plan_id == plan_id


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (lambda data: {"server_knowledge": data["server_knowledge"]}, "did not say which plan it is"),
        (lambda data: {**data, "plan": {**data["plan"], "id": "../user"}}, "named a plan id this service"),
    ],
)
async def test_a_last_used_delta_that_does_not_name_a_usable_plan_is_never_merged(cache, answer, said):
    ynab = MockYnab()
    client = ynab.client()
    cold = await cache.snapshot(client, "last-used")
    ynab.answers.append(answer)

    with pytest.raises(MalformedAnswer, match=said):
        await cache.snapshot(client, "last-used")

    assert ynab.queries == ["last-used", f"last-used?{cold.server_knowledge}"]
    assert [state.server_knowledge for state in cache.states()] == [cold.server_knowledge]


async def test_a_big_export_is_parsed_whole():
    ynab = MockYnab(transactions=2_500)

    snapshot = await PlanCache().snapshot(ynab.client(), ynab.plan_id)

    assert len(snapshot.transactions) == len(snapshot.transactions_in_account("a0")) == 2_500
    assert index_errors(snapshot) == []


async def test_a_plan_deleted_in_ynab_leaves_the_cache(client, cache, sandbox_log):
    plan = await sync_to_async(demo_plan_copy)()
    await cache.snapshot(client, plan.id)
    await sync_to_async(Plan.objects.filter(pk=plan.id).delete)()

    with pytest.raises(YnabError) as gone:
        await cache.snapshot(client, plan.id)

    assert gone.value.status == 404
    assert plan.id not in {state.plan_id for state in cache.states()}


def test_a_use_given_up_when_its_event_loop_ends_leaves_nothing_behind(cache, caplog):
    """The refresh is cancelled with its loop (as when a stdio session ends mid-call): no flight
    stays registered and nothing is logged as an error."""
    never = MockYnab()

    async def give_up() -> None:
        never.hold()  # the export never comes
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(cache.snapshot(never.client(), never.plan_id), 0.05)

    with caplog.at_level(logging.WARNING):
        asyncio.run(give_up())

    assert cache._flights == {}
    assert [record for record in caplog.records if record.levelno >= logging.WARNING] == []
