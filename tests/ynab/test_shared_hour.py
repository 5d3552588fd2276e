"""Several processes, one YNAB hour: with REDIS_URL set, every process's pacer of a token counts
the same hour, shares the pause after a 429, and history is seeded once (fake clocks, no sleeps)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.conf import settings as django_settings

from avenir_mcp.shared_state import redis_connection, shared
from avenir_mcp.ynab_client.errors import PacingRefused
from avenir_mcp.ynab_client.pacing import Pacer, RequestKind, pacer_for, reserve_of, share_of, spending_as
from tests.helpers.processes import PROCESS_SECONDS, service_env

START = 1_800_000_000.0
LIMIT = 30  # reads 15, a caller's share 7, the reserve 15
URL = "https://api.ynab.com/v1"
TAG = "tag-of-three-processes"

# Another process of the service: the token's pacer on a fixed clock tries to send `count`
# requests of a kind (or pauses as after a 429) and prints how many it was allowed. It says it is
# ready and waits for the word to start, so the processes of a test race for the same places.
PROGRAM = f"""
import sys, django
from django.conf import settings
settings.CACHES['shared']['KEY_PREFIX'] = sys.argv[1]
django.setup()
from avenir_mcp.shared_state import redis_connection, shared
from avenir_mcp.ynab_client.errors import PacingRefused
from avenir_mcp.ynab_client.pacing import RequestKind, pacer_for, spending_as
pacer = pacer_for({URL!r}, {TAG!r})
pacer.clock = lambda: {START!r}
action, spender, count = sys.argv[2], sys.argv[3] or None, int(sys.argv[4])
redis_connection().rpush(shared().make_key('ready'), 1)
redis_connection().blpop([shared().make_key('go')], {PROCESS_SECONDS})
allowed = 0
if action == 'PAUSE':
    pacer.pause('600')
with spending_as(spender):
    for _ in range(count if action != 'PAUSE' else 0):
        try:
            pacer.reserve(RequestKind[action])
            allowed += 1
        except PacingRefused:
            pass
print(allowed)
"""


@pytest.fixture
def hour(shared_store, settings, monkeypatch) -> Pacer:
    """This process's pacer of the token, on the fake clock, limited to 30 an hour like the others."""
    settings.AVENIR_MCP_YNAB_HOURLY_LIMIT = LIMIT
    pacer = pacer_for(URL, TAG)
    monkeypatch.setattr(pacer, "clock", lambda: START)
    return pacer


def in_other_processes(shared_store: str, *runs: tuple[str, str, int]) -> list[int]:
    """Start one process per `(kind or PAUSE, spender, count)` at once; what each was allowed."""
    prefix = django_settings.CACHES["shared"]["KEY_PREFIX"]
    env = service_env(REDIS_URL=shared_store, AVENIR_MCP_YNAB_HOURLY_LIMIT=str(LIMIT))
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", PROGRAM, prefix, action, spender, str(count)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for action, spender, count in runs
    ]
    store, connection = shared(), redis_connection()
    assert store is not None
    assert connection is not None
    for _ in processes:  # every one is ready: start them together
        assert connection.blpop([store.make_key("ready")], PROCESS_SECONDS) is not None
    connection.rpush(store.make_key("go"), *[1] * len(processes))
    allowed = []
    for process in processes:
        out, _ = process.communicate(timeout=PROCESS_SECONDS)
        assert process.returncode == 0
        allowed.append(int(out))
    return allowed


def test_three_processes_reading_get_the_hours_reads_together_and_the_reserve_stays_for_writes(
    shared_store, hour
):
    allowed = in_other_processes(shared_store, ("READ", "", 20), ("READ", "", 20), ("READ", "", 20))

    assert sum(allowed) == LIMIT - reserve_of(LIMIT) == 15  # never more, whatever the interleaving
    assert hour.used() == 15
    with pytest.raises(PacingRefused) as refused:
        hour.reserve(RequestKind.READ)
    assert "15 requests went to YNAB in the last hour, and reads stop at 15" in refused.value.message
    for _ in range(reserve_of(LIMIT)):  # a confirmed change and its undo still fit
        hour.reserve(RequestKind.WRITE)
    with pytest.raises(PacingRefused):
        hour.reserve(RequestKind.WRITE)


def test_a_callers_share_is_one_across_processes(shared_store, hour):
    allowed = in_other_processes(shared_store, ("READ", "token:1", 10), ("READ", "token:1", 10))

    assert sum(allowed) == share_of(LIMIT) == 7
    with spending_as("token:1"):
        assert hour.room() == 0
    with spending_as("token:2"):
        assert hour.room() == 7  # its own share: the reads' 15, less token:1's 7, leave 8
    assert hour.used() == 7


def test_a_429_seen_by_one_process_pauses_the_others_but_not_a_rollback(shared_store, hour):
    assert in_other_processes(shared_store, ("PAUSE", "", 0)) == [0]

    paused_until = hour.paused_until()
    assert paused_until is not None
    assert paused_until.timestamp() == START + 600
    for kind in (RequestKind.READ, RequestKind.WRITE):
        with pytest.raises(PacingRefused) as refused:
            hour.reserve(kind)
        assert "too many requests" in refused.value.message
    hour.reserve(RequestKind.ROLLBACK)
    assert hour.used() == 1


def test_history_is_seeded_into_the_store_once_whichever_process_starts_first(shared_store):
    history = [START - 60.0 * minute for minute in range(1, 11)]
    first, second = (Pacer(clock=lambda: START, limit=LIMIT, name="one token") for _ in range(2))

    first.seed(history, START + 120, {"token:1": history[:7]})
    second.seed(history, START + 120, {"token:1": history[:7]})  # the same rows, read by a second process

    assert (first.used(), second.used()) == (10, 10)
    assert second.paused_until() is not None
    with spending_as("token:1"):
        assert second.room() == 0  # its 7 reads were seeded


def test_history_is_not_seeded_once_a_process_has_counted_in_the_hour(shared_store):
    running = Pacer(clock=lambda: START, limit=LIMIT, name="one token", history=False)
    running.reserve(RequestKind.WRITE)
    started_later = Pacer(clock=lambda: START, limit=LIMIT, name="one token")

    started_later.seed([START], None, {})  # the request `running` sent, as its row: counted already

    assert started_later.used() == 1
    started_later.forget()
    assert running.used() == 0  # forgotten for every process
