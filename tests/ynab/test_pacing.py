"""Pacing: at most 180 requests in any rolling hour (reads 160 of them), a pause after a 429,
and a rollback never refused (no sleeping); alike in one process's memory and in the shared store."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from avenir_mcp.ynab_client.errors import PacingRefused
from avenir_mcp.ynab_client.pacing import (
    LIMIT,
    RESERVE,
    Pacer,
    RequestKind,
    current_kind,
    current_spender,
    hourly_limit,
    pacer_for,
    pause_seconds,
    request_kind,
    reset_pacing,
    spending_as,
)

START = 1_800_000_000.0  # some fixed epoch second


@pytest.fixture(autouse=True)
def _both_stores(either_store: str) -> str:
    """Every test holds for one process (the pacer's memory) and for several (the shared store)."""
    return either_store


class FakeClock:
    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_181st_request_within_an_hour_is_refused_with_when_the_next_may_leave():
    clock = FakeClock()
    pacer = Pacer(clock=clock, history=False)
    for _ in range(LIMIT):
        pacer.reserve(RequestKind.WRITE)
        clock.now += 1

    with pytest.raises(PacingRefused) as refused:
        pacer.reserve(RequestKind.WRITE)

    assert refused.value.retry_at == datetime.fromtimestamp(START + 3600, UTC)
    assert "180 requests went to YNAB in the last hour" in refused.value.message
    assert "(in 57 minutes)" in refused.value.message
    assert refused.value.status is None


def test_a_request_may_leave_again_once_the_oldest_is_an_hour_old():
    clock = FakeClock()
    pacer = Pacer(clock=clock, history=False)
    for _ in range(LIMIT):
        pacer.reserve(RequestKind.WRITE)
    clock.now = START + 3600.5

    pacer.reserve()

    assert pacer.used() == 1


def test_reads_stop_at_160_and_keep_the_last_20_for_writes():
    clock = FakeClock()
    pacer = Pacer(clock=clock, history=False)
    for _ in range(LIMIT - RESERVE):
        pacer.reserve(RequestKind.READ)
        clock.now += 1

    with pytest.raises(PacingRefused) as refused:
        pacer.reserve(RequestKind.READ)
    for _ in range(RESERVE):
        pacer.reserve(RequestKind.WRITE)

    assert "160 requests went to YNAB in the last hour, and reads stop at 160" in refused.value.message
    assert "keeping the last 20 of this service's 180 for changes and their undo" in refused.value.message
    # the read may leave when the oldest read is an hour old
    assert refused.value.retry_at == datetime.fromtimestamp(START + 3600, UTC)
    assert pacer.room(RequestKind.READ) == 0
    assert pacer.room(RequestKind.WRITE) == 0
    with pytest.raises(PacingRefused):
        pacer.reserve(RequestKind.WRITE)


def test_a_rollback_is_never_refused_neither_past_the_limit_nor_during_a_pause():
    clock = FakeClock()
    pacer = Pacer(clock=clock, history=False)
    for _ in range(LIMIT):
        pacer.reserve(RequestKind.WRITE)
    pacer.pause("600")

    pacer.reserve(RequestKind.ROLLBACK)

    assert pacer.used() == LIMIT + 1  # still counted
    assert pacer.room(RequestKind.ROLLBACK) is None
    with pytest.raises(PacingRefused):
        pacer.reserve(RequestKind.WRITE)


def test_the_kind_comes_from_the_context_and_only_rises():
    with request_kind(RequestKind.ROLLBACK):
        with request_kind(RequestKind.WRITE):
            inner = current_kind()
        outer = current_kind()

    assert (inner, outer, current_kind()) == (RequestKind.ROLLBACK, RequestKind.ROLLBACK, RequestKind.READ)


def test_a_small_limit_keeps_half_of_it_for_writes():
    pacer = Pacer(clock=FakeClock(), limit=10, history=False)
    for _ in range(5):
        pacer.reserve()

    with pytest.raises(PacingRefused):
        pacer.reserve()
    assert pacer.room(RequestKind.WRITE) == 5


def test_no_limit_paces_nothing_but_still_pauses_after_a_429():
    pacer = Pacer(clock=FakeClock(), limit=None, history=False)
    for _ in range(1000):
        pacer.reserve()
    pacer.pause("60")

    assert pacer.room(RequestKind.READ) is None
    with pytest.raises(PacingRefused):
        pacer.reserve()


def test_the_limit_is_180_against_ynab_and_none_against_a_sandbox_unless_set(settings):
    settings.AVENIR_MCP_YNAB_HOURLY_LIMIT = None
    assert hourly_limit("https://api.ynab.com/v1") == LIMIT
    assert hourly_limit("http://127.0.0.1:8000/sandbox/v1") is None

    settings.AVENIR_MCP_YNAB_HOURLY_LIMIT = 50
    assert hourly_limit("http://127.0.0.1:8000/sandbox/v1") == 50
    assert pacer_for("http://127.0.0.1:8000/sandbox/v1", "tag-of-a-set-limit").limit == 50

    settings.AVENIR_MCP_YNAB_HOURLY_LIMIT = 0
    assert hourly_limit("https://api.ynab.com/v1") is None


@settings(max_examples=200)
@given(st.lists(st.floats(0, 5000, allow_nan=False), min_size=1, max_size=400))
def test_reads_never_take_more_than_160_requests_of_any_hour(gaps):
    clock = FakeClock()
    pacer = Pacer(clock=clock, history=False)
    sent: list[float] = []
    refusals: list[tuple[float, PacingRefused, int]] = []
    for gap in gaps:
        clock.now += gap
        try:
            sent.append(pacer.reserve())
        except PacingRefused as refused:
            in_window = sum(1 for stamp in sent if stamp > clock.now - 3600)
            refusals.append((clock.now, refused, in_window))

    for now, refused, in_window in refusals:  # refused only when the reads' part is full, until later
        assert refused.retry_at.timestamp() > now
        assert in_window == LIMIT - RESERVE
    for stamp in sent:
        assert sum(1 for other in sent if stamp <= other < stamp + 3600) <= LIMIT - RESERVE


def test_a_request_never_sent_gives_its_place_back():
    pacer = Pacer(clock=FakeClock(), history=False)
    stamp = pacer.reserve()

    pacer.release(stamp)

    assert pacer.used() == 0


def test_after_a_429_nothing_leaves_until_retry_after_has_passed():
    clock = FakeClock()
    pacer = Pacer(clock=clock, history=False)
    pacer.pause("120")
    clock.now += 119

    with pytest.raises(PacingRefused) as refused:
        pacer.reserve()
    clock.now += 1
    pacer.reserve()

    assert "too many requests" in refused.value.message
    assert "(in 1 minute)" in refused.value.message


@pytest.mark.parametrize(
    ("retry_after", "seconds"),
    [(None, 600), ("", 600), ("soon", 600), ("5", 60), ("120", 120), ("86400", 3600)],
)
def test_retry_after_is_clamped_to_a_minute_and_an_hour_and_defaults_to_ten_minutes(retry_after, seconds):
    assert pause_seconds(retry_after, START) == seconds


def test_retry_after_may_be_an_http_date():
    when = format_datetime(datetime.fromtimestamp(START + 900, UTC), usegmt=True)

    assert pause_seconds(when, START) == 900


def test_history_is_counted_once_at_first_use():
    clock = FakeClock()
    pacer = Pacer(clock=clock)
    assert pacer.needs_history

    pacer.seed([START - 10] * LIMIT)
    pacer.seed([START - 5] * LIMIT)  # a second, late seeding is ignored

    assert not pacer.needs_history
    assert pacer.used() == LIMIT
    with pytest.raises(PacingRefused):
        pacer.reserve(RequestKind.WRITE)


def test_reset_pacing_empties_the_pacer_a_client_already_holds():
    held = pacer_for("https://api.ynab.com/v1", "tag-held-by-a-client")
    for _ in range(LIMIT):
        held.reserve(RequestKind.WRITE)
    held.pause(None)

    reset_pacing()

    assert held.used() == 0
    assert held.paused_until() is None
    held.reserve()  # the budget is whole again


def test_a_callers_reads_stop_at_its_share_while_another_caller_and_writes_go_on():
    pacer = Pacer(clock=FakeClock(), limit=60, history=False)  # reads 40, 20 per caller
    with spending_as("token:1"):
        for _ in range(20):
            pacer.reserve()
        room = pacer.room()
        with pytest.raises(PacingRefused) as refused:
            pacer.reserve()
        pacer.reserve(RequestKind.WRITE)  # a write is nobody's share
    with spending_as("token:2"):
        other_room = pacer.room()
        pacer.reserve()

    assert (room, other_room) == (0, 19)  # 21 of the 40 the reads may use are gone
    assert current_spender() is None
    assert "this MCP client's reads took 20 requests" in refused.value.message


def test_a_read_never_sent_gives_its_callers_share_back_and_no_limit_counts_no_share():
    pacer = Pacer(clock=FakeClock(), limit=4, history=False)  # reads 2, 1 per caller
    with spending_as("token:1"):
        pacer.release(pacer.reserve())
        pacer.reserve()
        spent = pacer.room()
    unpaced = Pacer(clock=FakeClock(), limit=None, history=False)
    with spending_as("token:1"):
        for _ in range(100):
            unpaced.reserve()

    assert spent == 0
    assert unpaced.used() == 100
