"""The plan store: a stored snapshot is the plan exactly, and one that cannot be trusted is
ignored with one log line and costs a full export, never a wrong answer."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import gc
import json
import logging
import pickle
import tracemalloc
import zlib
from dataclasses import replace
from datetime import date

import anyio
import pytest
from asgiref.sync import sync_to_async
from django.db.utils import OperationalError

from avenir_mcp import ynab_client
from avenir_mcp.sandbox.models import Plan
from avenir_mcp.sandbox.seeding import seed_demo_plan
from avenir_mcp.ynab_client import cache as cache_module
from avenir_mcp.ynab_client import store
from avenir_mcp.ynab_client.cache import PlanCache
from avenir_mcp.ynab_client.client import YnabClient
from avenir_mcp.ynab_client.pacing import Pacer
from avenir_mcp.ynab_requests.log import DatabaseRequestLog
from tests.helpers.plan_copies import demo_plan_copy
from tests.ynab.compare import differences, index_errors

pytestmark = pytest.mark.anyio


def assert_same_plan(actual, expected) -> None:
    """Every field, entity and index entry alike, and every index what a scan would compute."""
    assert differences(actual, expected) == []
    assert index_errors(actual) == []


async def loaded(client, plan_id: str):
    """The plan as a new process's cache first loads it (and has stored it, when it changed)."""
    cache = PlanCache()
    snapshot = await cache.snapshot(client, plan_id)
    cache.saver.wait()
    await marks_done()
    return snapshot


async def marks_done() -> None:
    """Return once the store has every use of a plan marked so far (the warm-up's queue, in order)."""
    await anyio.to_thread.run_sync(lambda: cache_module._restorer.submit(lambda: None).result())


async def test_a_stored_plan_loads_back_exactly_indexes_and_all(client, demo_plan_id):
    snapshot = await loaded(client, demo_plan_id)
    store.save(client.base_url, client.token_tag, snapshot)

    restored = store.load(client.base_url, client.token_tag, demo_plan_id)

    assert_same_plan(restored, snapshot)
    assert (restored.server_knowledge, restored.as_of) == (snapshot.server_knowledge, snapshot.as_of)


async def test_a_new_cache_loads_the_store_and_sends_one_delta(
    client, demo_plan_id, sandbox_log, freshness_clock
):
    """The stored snapshot is read only after that delta, which dates it anew (its `as_of`)."""
    stored_at = freshness_clock.wall_time()
    snapshot = await loaded(client, demo_plan_id)
    store.save(client.base_url, client.token_tag, snapshot)
    await sandbox_log.mark()
    freshness_clock.now += 30
    delta_at = freshness_clock.wall_time()

    warm = await loaded(client, demo_plan_id)

    [request] = await sandbox_log.requests(demo_plan_id)
    assert request.query == f"last_knowledge_of_server={snapshot.server_knowledge}"
    assert_same_plan(warm, snapshot)
    assert (snapshot.as_of, warm.as_of) == (stored_at, delta_at)


def rewritten_header(path, **changes) -> None:
    data = path.read_bytes()
    magic, header, payload = data.split(b"\n", 2)
    path.write_bytes(magic + b"\n" + json.dumps({**json.loads(header), **changes}).encode() + b"\n" + payload)


def resealed(path, payload: bytes | None = None, **changes) -> None:
    """Rewrite a stored plan's header (and payload) and seal it again, as this service would:
    what its own checks see when a file it wrote is wrong (a bug, a key that leaked)."""
    _magic, header, kept = path.read_bytes().split(b"\n", 2)
    payload = kept if payload is None else payload
    header = {**json.loads(header), "size": len(zlib.decompress(payload)), **changes}
    header["seal"] = store._seal(header, payload)
    path.write_bytes(store._MAGIC + json.dumps(header).encode() + b"\n" + payload)


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"token_tag": "0123456789ab"}, "stored for another YNAB key"),
        ({"format": "0:an-older-one"}, "format 0:an-older-one"),
        ({"seal": "0" * 64}, "its seal does not match"),
    ],
)
async def test_a_store_it_cannot_trust_is_ignored_with_one_log_line(
    client, demo_plan_id, sandbox_log, caplog, changes, said
):
    snapshot = await loaded(client, demo_plan_id)
    path = store.save(client.base_url, client.token_tag, snapshot)
    rewritten_header(path, **changes)
    await sandbox_log.mark()

    with caplog.at_level(logging.WARNING, logger="avenir_mcp.ynab_client.store"):
        fresh = await loaded(client, demo_plan_id)

    [line] = [
        record.getMessage() for record in caplog.records if record.name == "avenir_mcp.ynab_client.store"
    ]
    assert said in line
    assert "loading it in full" in line
    [request] = await sandbox_log.requests(demo_plan_id)
    assert request.query == ""  # the full export
    assert_same_plan(fresh, snapshot)


async def test_a_store_naming_anything_but_the_plan_classes_is_never_unpickled(client, demo_plan_id, caplog):
    snapshot = await loaded(client, demo_plan_id)
    path = store.save(client.base_url, client.token_tag, snapshot)
    resealed(path, zlib.compress(pickle.dumps(print)))  # a callable: what an attack would need

    with caplog.at_level(logging.WARNING, logger="avenir_mcp.ynab_client.store"):
        assert store.load(client.base_url, client.token_tag, demo_plan_id) is None

    assert "it names builtins.print, which a stored plan never holds" in caplog.text


async def test_a_plan_re_created_with_less_knowledge_is_loaded_in_full_not_merged(
    client, demo_plan_id, sandbox_log, caplog, settings, tmp_path, either_store
):
    written = await loaded(client, demo_plan_id)
    account_id = next(iter(written.accounts))
    for memo in ("one", "two", "three"):  # raises the plan's knowledge past the seed's
        await client.post_transactions(
            demo_plan_id, [{"account_id": account_id, "date": "2026-01-05", "amount": -1000, "memo": memo}]
        )
    written = await loaded(client, demo_plan_id)
    store.save(client.base_url, client.token_tag, written)
    await sync_to_async(_reseeded)(demo_plan_id)  # the same id, the demo as seeded: less knowledge
    await sandbox_log.mark()

    with caplog.at_level(logging.WARNING, logger="avenir_mcp.ynab_client.cache"):
        after = await loaded(client, demo_plan_id)

    queries = [request.query for request in await sandbox_log.requests(demo_plan_id)]
    assert queries == [f"last_knowledge_of_server={written.server_knowledge}", ""]
    assert "server_knowledge went back" in caplog.text
    assert after.server_knowledge < written.server_knowledge
    assert not {"one", "two", "three"} & {t.memo for t in after.transactions.values()}
    settings.AVENIR_MCP_DATA_DIR = tmp_path  # nothing stored there: a full export
    assert_same_plan(after, await loaded(client, demo_plan_id))


def _reseeded(plan_id: str) -> None:
    Plan.objects.filter(pk=plan_id).delete()
    seed_demo_plan(plan_id=plan_id)


async def test_a_plan_is_stored_at_once_then_at_most_once_a_minute_and_at_shutdown(client, demo_plan_id):
    first = await loaded(client, demo_plan_id)
    later = dataclasses.replace(first, server_knowledge=first.server_knowledge + 1)
    saver = store.Saver()

    saver.plan_changed(client.base_url, client.token_tag, first)
    saver.wait()
    saver.plan_changed(client.base_url, client.token_tag, later)  # within the minute: kept for later
    saver.wait()
    kept_meanwhile = store.load(client.base_url, client.token_tag, demo_plan_id).server_knowledge
    saver.flush()

    assert kept_meanwhile == first.server_knowledge
    assert (
        store.load(client.base_url, client.token_tag, demo_plan_id).server_knowledge == later.server_knowledge
    )


async def loads_done(cache: PlanCache) -> None:
    """Return once every load from the store the cache started has ended."""
    started = list(cache._restores.values())
    await anyio.to_thread.run_sync(lambda: concurrent.futures.wait(started))


def loaded_ids(cache: PlanCache) -> set[str]:
    return {state.plan_id for state in cache.states()}


async def test_a_new_process_loads_the_plan_used_last_and_another_only_when_a_call_reads_it(
    client, sandbox_log, settings, tmp_path
):
    settings.AVENIR_MCP_DATA_DIR = tmp_path  # only this test's plans are stored here
    other_id, used_id = [(await sync_to_async(demo_plan_copy)()).id for _ in range(2)]
    other = await loaded(client, other_id)
    used = await loaded(client, used_id)  # stored last: the plan used last
    restarted = PlanCache()

    assert restarted.warm_up(client) == [used_id, other_id]
    await loads_done(restarted)
    loaded_at_start = loaded_ids(restarted)
    await sandbox_log.mark()
    again = await restarted.snapshot(client, other_id)

    assert loaded_at_start == {used_id}
    assert restarted.holds(client, other_id)  # stored: known to be the key's without a listing
    [request] = await sandbox_log.requests()  # from the store, then one delta: no export
    assert request.query == f"last_knowledge_of_server={other.server_knowledge}"
    assert_same_plan(again, other)
    assert loaded_ids(restarted) == {used_id, other_id}
    assert_same_plan(await restarted.snapshot(client, used_id), used)


async def test_the_plan_loaded_at_start_is_the_one_a_call_used_last_not_the_one_saved_last(
    client, settings, tmp_path
):
    settings.AVENIR_MCP_DATA_DIR = tmp_path
    read_again_id, saved_last_id = [(await sync_to_async(demo_plan_copy)()).id for _ in range(2)]
    await loaded(client, read_again_id)
    await loaded(client, saved_last_id)
    await loaded(client, read_again_id)  # a read of the stored plan, unchanged: nothing saved
    restarted = PlanCache()

    assert restarted.warm_up(client) == [read_again_id, saved_last_id]
    await loads_done(restarted)
    assert loaded_ids(restarted) == {read_again_id}


async def test_a_new_cache_knows_what_last_used_meant_and_sends_one_delta(
    client, demo_plan_id, sandbox_log, settings, tmp_path
):
    settings.AVENIR_MCP_DATA_DIR = tmp_path  # only this test's plans are stored here
    await client.get_plan(demo_plan_id, 10**9)  # opening a plan makes it YNAB's last-used
    before = PlanCache()
    first = await before.snapshot(client, "last-used")
    before.saver.wait()
    restarted = PlanCache()
    restarted.warm_up(client)
    await sandbox_log.mark()

    again = await restarted.snapshot(client, "last-used")

    [request] = await sandbox_log.requests()
    assert request.path.endswith("/plans/last-used")
    assert request.query == f"last_knowledge_of_server={first.server_knowledge}"
    assert again.plan_id == first.plan_id == demo_plan_id
    assert_same_plan(again, first)


async def test_the_http_service_stores_its_plans_when_it_stops(monkeypatch):
    """The ASGI lifespan's shutdown runs the store to its end (inside the task group that it
    cancels, the store's thread would be cancelled before it ran: a restart then cost an export)."""
    from avenir_mcp.mcp_surface.http import McpHttpApp
    from avenir_mcp.mcp_surface.server import HttpServers

    stored: list[str] = []
    monkeypatch.setattr(ynab_client, "store_changed_plans", lambda: stored.append("stored"))
    service = McpHttpApp(HttpServers.build())
    said: list[str] = []

    async def receive() -> dict:
        return {"type": "lifespan.shutdown" if said else "lifespan.startup"}

    async def send(message: dict) -> None:
        said.append(message["type"])

    await service.serve_lifespan(receive, send)

    assert said == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert stored == ["stored"]


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda path: path.write_bytes(b"PK\x03\x04 a zip file"), "not a stored plan"),
        (
            lambda path: rewritten_header(path, plan_id="0a1b2c3d-0000-4000-8000-000000000000"),
            "another YNAB URL",
        ),
        (lambda path: rewritten_header(path, server_knowledge=1), "its seal does not match"),
        (lambda path: resealed(path, server_knowledge=1), "its content is not the plan its header names"),
        (lambda path: path.write_bytes(store._MAGIC + b"{not json\n"), "is unreadable: JSONDecodeError"),
    ],
)
async def test_a_stored_plan_that_is_damaged_or_not_this_one_is_ignored_with_one_log_line(
    client, demo_plan_id, caplog, damage, said
):
    snapshot = await loaded(client, demo_plan_id)
    path = store.save(client.base_url, client.token_tag, snapshot)
    damage(path)

    with caplog.at_level(logging.WARNING, logger="avenir_mcp.ynab_client.store"):
        assert store.load(client.base_url, client.token_tag, demo_plan_id) is None

    [line] = [
        record.getMessage() for record in caplog.records if record.name == "avenir_mcp.ynab_client.store"
    ]
    assert said in line
    assert line.endswith("loading it in full.")


async def test_a_stored_payload_that_is_not_a_plan_is_ignored(client, demo_plan_id, caplog):
    snapshot = await loaded(client, demo_plan_id)
    path = store.save(client.base_url, client.token_tag, snapshot)
    resealed(path, zlib.compress(pickle.dumps(date(2026, 1, 1))))  # an allowed class, not a plan

    with caplog.at_level(logging.WARNING, logger="avenir_mcp.ynab_client.store"):
        assert store.load(client.base_url, client.token_tag, demo_plan_id) is None

    assert "it holds a date, not a plan" in caplog.text


async def test_a_plan_file_that_cannot_be_read_or_written_costs_a_full_export_never_a_crash(
    client, demo_plan_id, caplog, settings, tmp_path
):
    settings.AVENIR_MCP_DATA_DIR = tmp_path
    snapshot = await loaded(client, demo_plan_id)
    path = store.path_for(client.base_url, demo_plan_id)
    path.unlink()  # stored by the first load
    path.mkdir()  # something else where the plan's file belongs

    with caplog.at_level(logging.WARNING, logger="avenir_mcp.ynab_client.store"):
        assert store.load(client.base_url, client.token_tag, demo_plan_id) is None
        with pytest.raises(IsADirectoryError):
            store.save(client.base_url, client.token_tag, snapshot)

    assert f"({path} cannot be read: " in caplog.text
    assert [child.name for child in path.parent.iterdir()] == [path.name]  # no half-written file left


async def test_a_save_that_fails_is_logged_and_the_next_process_loads_in_full(
    client, demo_plan_id, caplog, settings, tmp_path
):
    snapshot = await loaded(client, demo_plan_id)
    blocked = tmp_path / "a-file"
    blocked.write_text("the data folder is a file")
    settings.AVENIR_MCP_DATA_DIR = blocked
    saver = store.Saver()

    with caplog.at_level(logging.ERROR, logger="avenir_mcp.ynab_client.store"):
        saver.plan_changed(client.base_url, client.token_tag, snapshot)
        saver.wait()

    assert f"Could not store plan {demo_plan_id} (the next process will load it in full)" in caplog.text
    assert store.stored_plans(client.base_url, client.token_tag) == []


async def test_only_readable_plan_files_of_this_ynab_and_key_are_listed_at_start(
    client, demo_plan_id, settings, tmp_path
):
    settings.AVENIR_MCP_DATA_DIR = tmp_path
    snapshot = await loaded(client, demo_plan_id)
    store.save(client.base_url, client.token_tag, snapshot, aliases=["last-used"])
    other_key = store.save(client.base_url, "0123456789ab", replace(snapshot, plan_id="other-plan"))
    other_key.rename(other_key.with_name("other-key" + store.SUFFIX))
    (tmp_path / "plans" / ("not-a-plan" + store.SUFFIX)).write_bytes(b"something else entirely")
    (tmp_path / "plans" / ("bad-header" + store.SUFFIX)).write_bytes(store._MAGIC + b"{oops\n")

    assert store.stored_plans(client.base_url, client.token_tag) == [
        store.StoredPlan(demo_plan_id, ("last-used",))
    ]


async def test_loading_a_plan_leaves_the_garbage_collector_as_it_found_it(client, demo_plan_id):
    snapshot = await loaded(client, demo_plan_id)
    store.save(client.base_url, client.token_tag, snapshot)

    gc.disable()  # as a caller that manages collection itself
    try:
        assert store.load(client.base_url, client.token_tag, demo_plan_id) is not None
        still_off = not gc.isenabled()
    finally:
        gc.enable()
    assert store.load(client.base_url, client.token_tag, demo_plan_id) is not None

    assert still_off
    assert gc.isenabled()


async def test_a_warm_up_step_that_fails_is_logged_and_left_to_the_first_call(
    sandbox_url, demo_plan_id, monkeypatch, caplog, settings, tmp_path
):
    settings.AVENIR_MCP_DATA_DIR = tmp_path
    client = YnabClient(base_url=sandbox_url, token=settings.SANDBOX_TOKEN, pacer=Pacer(), delays=(0, 0))

    def locked(*args):
        raise OperationalError("database is locked")

    monkeypatch.setattr(DatabaseRequestLog, "last_hour", locked)
    cache = PlanCache()
    with caplog.at_level(logging.ERROR, logger="avenir_mcp.ynab_client.cache"):
        assert cache.warm_up(client) == []
        await anyio.to_thread.run_sync(lambda: cache_module._restorer.submit(lambda: None).result())

    assert "Warm-up step failed (the first call will do it)" in caplog.text
    assert client.sender.pacer.needs_history
    monkeypatch.undo()  # the database answers again
    assert (await cache.snapshot(client, demo_plan_id)).plan_id == demo_plan_id
    assert not client.sender.pacer.needs_history  # the first call read the last hour instead


async def test_a_forged_plan_with_a_correct_sha256_is_never_loaded(client, demo_plan_id, sandbox_log, caplog):
    """Well formed, its SHA-256 right, its content another plan: only this service's seal counts."""
    snapshot = await loaded(client, demo_plan_id)
    path = store.save(client.base_url, client.token_tag, snapshot)
    [account_id, *_] = snapshot.accounts
    forged = replace(
        snapshot,
        accounts=snapshot.accounts.evolve(
            {account_id: replace(snapshot.accounts[account_id], balance=10**12)}
        ),
    )
    payload, size = store._payload(forged)
    rewritten_header(path, size=size, seal=store.hashlib.sha256(payload).hexdigest())
    magic, header, _ = path.read_bytes().split(b"\n", 2)
    path.write_bytes(magic + b"\n" + header + b"\n" + payload)
    await sandbox_log.mark()

    with caplog.at_level(logging.WARNING, logger="avenir_mcp.ynab_client.store"):
        fresh = await loaded(client, demo_plan_id)

    [line] = [
        record.getMessage() for record in caplog.records if record.name == "avenir_mcp.ynab_client.store"
    ]
    assert "its seal does not match (damaged, or not written by this service)" in line
    [request] = await sandbox_log.requests(demo_plan_id)
    assert request.query == ""  # the full export
    assert fresh.accounts[account_id].balance == snapshot.accounts[account_id].balance != 10**12


async def test_a_plan_stored_under_another_secret_key_is_ignored(client, demo_plan_id, settings, caplog):
    snapshot = await loaded(client, demo_plan_id)
    own_key, settings.SECRET_KEY = settings.SECRET_KEY, "another installation's secret key"
    store.save(client.base_url, client.token_tag, snapshot)
    settings.SECRET_KEY = own_key

    with caplog.at_level(logging.WARNING, logger="avenir_mcp.ynab_client.store"):
        assert store.load(client.base_url, client.token_tag, demo_plan_id) is None

    assert "its seal does not match" in caplog.text
    store.save(client.base_url, client.token_tag, snapshot)
    assert_same_plan(store.load(client.base_url, client.token_tag, demo_plan_id), snapshot)


BOMB_MIB = 64


@pytest.fixture(scope="module")
def zlib_bomb() -> bytes:
    """A few dozen KB of zlib that inflates to BOMB_MIB MiB of zeros."""
    squeezer = zlib.compressobj(9)
    zeros = bytes(1024 * 1024)
    return b"".join([*(squeezer.compress(zeros) for _ in range(BOMB_MIB)), squeezer.flush()])


def stored_by_this_service(settings, tmp_path, payload: bytes, size) -> None:
    """A plan file with `payload`, stating `size`, sealed with this service's key."""
    settings.AVENIR_MCP_DATA_DIR = tmp_path
    header = {
        "format": store.FORMAT,
        "base_url": "https://ynab_client.example/v1",
        "token_tag": "0123456789ab",
        "plan_id": "plan-1",
        "server_knowledge": 1,
        "saved_at": 0.0,
        "aliases": [],
        "size": size,
    }
    header["seal"] = store._seal(header, payload)
    path = store.path_for("https://ynab_client.example/v1", "plan-1")
    path.parent.mkdir(parents=True)
    path.write_bytes(store._MAGIC + json.dumps(header).encode() + b"\n" + payload)


def peak_memory_loading(caplog) -> int:
    """Bytes allocated at the peak of loading plan-1 (which must be refused)."""
    tracemalloc.start()
    try:
        with caplog.at_level(logging.WARNING, logger="avenir_mcp.ynab_client.store"):
            assert store.load("https://ynab_client.example/v1", "0123456789ab", "plan-1") is None
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_plan_stating_more_than_the_cap_is_refused_without_inflating(settings, tmp_path, caplog, zlib_bomb):
    stored_by_this_service(settings, tmp_path, zlib_bomb, size=store.MAX_INFLATED_BYTES + 1)

    peak = peak_memory_loading(caplog)

    assert len(zlib_bomb) < 100 * 1024
    assert f"it states {store.MAX_INFLATED_BYTES + 1} bytes inflated, beyond the 134,217,728" in caplog.text
    assert peak < 4 * 1024 * 1024  # the file itself, not the 64 MiB it inflates to


def test_a_plan_inflating_past_its_stated_size_is_refused_while_inflating(
    settings, tmp_path, caplog, zlib_bomb
):
    stored_by_this_service(settings, tmp_path, zlib_bomb, size=1024 * 1024)  # states 1 MiB, holds 64

    peak = peak_memory_loading(caplog)

    assert "it does not inflate to the 1,048,576 bytes its header states" in caplog.text
    assert peak < 4 * 1024 * 1024  # one MiB inflated and the file, never the 64 MiB
