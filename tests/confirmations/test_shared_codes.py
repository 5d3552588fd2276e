"""Codes in the shared store seen from two processes (docs/architecture.md#shared-state): a
secret issued by one worker is spent by any other, once; the cap holds across them all; the
admin of any process lists and revokes what any other issued."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from django.conf import settings

from avenir_mcp.confirmations.codes import Binding, Kind
from avenir_mcp.confirmations.shared_codes import SharedConfirmationStore
from avenir_mcp.values.refusal import Refusal
from tests.helpers.processes import PROCESS_SECONDS, service_env

BINDING = Binding(fingerprint="f" * 64, plan_id="plan-1", tool="set_category_budget", principal_key="token:1")
PREVIEW = "Budget Restaurants for 2026-09-01: 120.00 → 150.00?"

# What another process of the service runs first: Django set up on this test's REDIS_URL and
# key prefix, then `store` is that process's own: the shared one, since REDIS_URL is set.
PREAMBLE = f"""
import sys, threading, django
from django.conf import settings
settings.CACHES["shared"]["KEY_PREFIX"] = sys.argv[1]
django.setup()
from avenir_mcp.confirmations.codes import Binding, Kind, store
from avenir_mcp.confirmations.shared_codes import SharedConfirmationStore
from avenir_mcp.values.refusal import Refusal
binding = {BINDING!r}
"""


def start_another_process(program: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", PREAMBLE + program, settings.CACHES["shared"]["KEY_PREFIX"]],
        env=service_env(REDIS_URL=settings.REDIS_URL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def said(process: subprocess.Popen[str]) -> str:
    """What the process printed, once it ended well."""
    out, err = process.communicate(timeout=PROCESS_SECONDS)
    assert process.returncode == 0, err
    return out.strip()


def in_another_process(program: str) -> str:
    return said(start_another_process(program))


@pytest.fixture
def here(shared_store: str) -> SharedConfirmationStore:
    return SharedConfirmationStore()


def issue(store: SharedConfirmationStore, *, for_person: bool = False) -> str:
    return store.issue(Kind.CODE, BINDING, preview=PREVIEW, principal_name="Claude", for_person=for_person)


def test_a_code_issued_here_is_spent_by_another_process_once(here):
    code = issue(here)

    assert (
        in_another_process(
            f"print(store.waiting(Kind.CODE, {code!r}), store.spend(Kind.CODE, {code!r}, binding), "
            f"store.spend(Kind.CODE, {code!r}, binding))"
        )
        == "True True False"
    )
    assert here.spend(Kind.CODE, code, BINDING) is False


def test_ten_spends_of_one_code_in_two_processes_at_once_succeed_once(here):
    code = issue(here)
    five_threads = f"""
results = []
start = threading.Barrier(5)
def spend():
    start.wait(timeout=60)
    results.append(store.spend(Kind.CODE, {code!r}, binding))
threads = [threading.Thread(target=spend) for _ in range(5)]
for thread in threads: thread.start()
for thread in threads: thread.join(timeout=60)
print(len(results), results.count(True))
"""
    processes = [start_another_process(five_threads) for _ in range(2)]

    counts = [said(process).split() for process in processes]

    assert [spent for spent, _ in counts] == ["5", "5"]
    assert sum(int(true) for _, true in counts) == 1


def test_the_cap_holds_across_processes(shared_store):
    here = SharedConfirmationStore(capacity=2)
    issue(here)

    assert in_another_process(
        """
there = SharedConfirmationStore(capacity=2)
there.issue(Kind.CODE, binding, preview="", principal_name="Claude")
try:
    there.issue(Kind.CODE, binding, preview="", principal_name="Claude")
except Refusal as full:
    print(full)
"""
    ).startswith("Too many confirmations are waiting (2): nothing was changed.")
    with pytest.raises(Refusal):
        issue(here)


def test_an_expired_code_is_refused_by_every_process(shared_store):
    ten_minutes_ago = SharedConfirmationStore(clock=lambda: time.time() - 600)
    expired, young = issue(ten_minutes_ago), issue(SharedConfirmationStore())

    assert (
        in_another_process(
            f"print(store.waiting(Kind.CODE, {expired!r}), store.spend(Kind.CODE, {expired!r}, binding), "
            f"store.waiting(Kind.CODE, {young!r}), len(store.pending()))"
        )
        == "False False True 1"
    )


def test_another_process_lists_and_revokes_what_was_issued_here(here):
    code = issue(here, for_person=True)

    assert (
        in_another_process(
            "[item] = store.pending(); print(item.code_for_person, item.preview, store.revoke(item.id))"
        )
        == f"{code} {PREVIEW} True"
    )
    assert here.pending() == []
    assert here.spend(Kind.CODE, code, BINDING) is False
