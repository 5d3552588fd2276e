"""The stores of confirmation codes and questions (docs/confirmation.md#confirmation-codes): every
test runs against both, in this process's memory and in Redis (`shared_store`), one contract."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from avenir_mcp.confirmations.codes import Binding, ConfirmationStore, Kind
from avenir_mcp.confirmations.shared_codes import SharedConfirmationStore
from avenir_mcp.values.refusal import Refusal

BINDING = Binding(fingerprint="f" * 64, plan_id="plan-1", tool="set_category_budget", principal_key="token:1")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


MakeStore = Callable[..., ConfirmationStore]


@pytest.fixture(params=[ConfirmationStore, SharedConfirmationStore], ids=["memory", "shared"])
def make_store(request, clock: FakeClock) -> MakeStore:
    """Stores of one kind on the fake clock; Redis's under this test's own key prefix."""
    if request.param is SharedConfirmationStore:
        request.getfixturevalue("shared_store")
    kind: type[ConfirmationStore] = request.param
    return lambda **options: kind(
        clock=clock, wall_clock=lambda: datetime(2026, 9, 1, 12, 0, tzinfo=UTC), **options
    )


@pytest.fixture
def store(make_store: MakeStore) -> ConfirmationStore:
    return make_store()


def issue(store: ConfirmationStore, binding: Binding = BINDING, kind: Kind = Kind.CODE) -> str:
    return store.issue(
        kind, binding, preview="Budget Restaurants for 2026-09-01: 120.00 → 150.00?", principal_name="Claude"
    )


def test_a_code_is_eleven_url_safe_characters(store):
    codes = {issue(store) for _ in range(50)}

    assert len(codes) == 50
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{11}", code) for code in codes)


def test_a_code_confirms_its_own_change_once(store):
    code = issue(store)

    assert store.spend(Kind.CODE, code, BINDING) is True
    assert store.spend(Kind.CODE, code, BINDING) is False


def test_a_code_lives_600_seconds_on_the_monotonic_clock(store, clock):
    young, old = issue(store), issue(store)
    clock.now += 599.9
    assert store.spend(Kind.CODE, young, BINDING) is True
    clock.now += 0.1
    assert store.spend(Kind.CODE, old, BINDING) is False


@pytest.mark.parametrize(
    "other",
    [
        Binding("e" * 64, "plan-1", "set_category_budget", "token:1"),  # other changes
        Binding("f" * 64, "plan-2", "set_category_budget", "token:1"),  # other plan
        Binding("f" * 64, "plan-1", "move_money", "token:1"),  # other tool
        Binding("f" * 64, "plan-1", "set_category_budget", "token:2"),  # other token
    ],
)
def test_a_code_spent_on_anything_else_is_refused_and_burnt(store, other):
    code = issue(store)

    assert store.spend(Kind.CODE, code, other) is False
    assert store.spend(Kind.CODE, code, BINDING) is False


def test_a_code_is_not_an_answer_to_a_question_nor_the_reverse(store):
    code, nonce = issue(store), issue(store, kind=Kind.QUESTION)

    assert store.spend(Kind.QUESTION, code, BINDING) is False
    assert store.spend(Kind.CODE, nonce, BINDING) is False
    assert store.spend(Kind.CODE, code, BINDING) is True
    assert store.spend(Kind.QUESTION, nonce, BINDING) is True


def test_an_unknown_code_is_refused(store):
    assert store.spend(Kind.CODE, "AAAAAAAAAAA", BINDING) is False


def test_a_full_store_refuses_new_codes_with_a_one_line_message(make_store):
    store = make_store(capacity=3)
    waiting = [issue(store) for _ in range(3)]

    with pytest.raises(Refusal) as full:
        issue(store)

    assert str(full.value) == (  # one line, saying what to do
        "Too many confirmations are waiting (3): nothing was changed. Let them expire (10 minutes) "
        "or have the owner revoke some in the admin, then call again."
    )
    assert all(store.spend(Kind.CODE, code, BINDING) for code in waiting)


def test_expired_codes_make_room_before_the_store_counts_as_full(make_store, clock):
    store = make_store(capacity=2)
    issue(store)
    clock.now += 300
    second = issue(store)
    clock.now += 300  # the first is now 600 s old: expired

    third = issue(store)

    assert store.spend(Kind.CODE, second, BINDING) is True
    assert store.spend(Kind.CODE, third, BINDING) is True


def test_waiting_tells_an_unexpired_secret_without_spending_it(store, clock):
    code, nonce = issue(store), issue(store, kind=Kind.QUESTION)

    assert store.waiting(Kind.CODE, code) is True
    assert store.waiting(Kind.CODE, code) is True  # still there: nothing was consumed
    assert store.waiting(Kind.QUESTION, code) is False
    assert store.waiting(Kind.CODE, "AAAAAAAAAAA") is False
    assert store.spend(Kind.CODE, code, BINDING) is True
    assert store.waiting(Kind.CODE, code) is False
    clock.now += 600
    assert store.waiting(Kind.QUESTION, nonce) is False


def test_a_code_for_the_person_is_the_one_secret_pending_shows(store, clock):
    for_agent = issue(store)
    clock.now += 1
    for_person = store.issue(
        Kind.CODE, BINDING, preview="Move 5.00?", principal_name="Claude", for_person=True
    )

    assert [item.code_for_person for item in store.pending()] == [None, for_person]
    assert for_agent not in repr(store.pending())


def test_pending_lists_what_waits_without_the_secrets(store, clock):
    code = issue(store)
    clock.now += 1  # the oldest first
    nonce = issue(store, kind=Kind.QUESTION)
    clock.now += 99

    pending = store.pending()

    assert [item.kind for item in pending] == [Kind.CODE, Kind.QUESTION]
    first = pending[0]
    assert (first.tool, first.plan_id, first.principal_name, first.principal_key) == (
        "set_category_budget",
        "plan-1",
        "Claude",
        "token:1",
    )
    assert first.preview == "Budget Restaurants for 2026-09-01: 120.00 → 150.00?"
    assert first.issued_at == datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
    assert first.expires_in_seconds == 500
    assert code not in repr(pending)
    assert nonce not in repr(pending)


def test_pending_leaves_out_what_expired_or_was_spent(store, clock):
    spent, expiring = issue(store), issue(store)
    store.spend(Kind.CODE, spent, BINDING)
    clock.now += 600

    assert store.pending() == []
    assert store.spend(Kind.CODE, expiring, BINDING) is False


def test_a_revoked_code_can_no_longer_be_spent(store, clock):
    code = issue(store)
    clock.now += 1  # the oldest first
    other = issue(store)
    revoked_id = store.pending()[0].id

    assert store.revoke(revoked_id) is True
    assert store.revoke(revoked_id) is False
    assert len(store.pending()) == 1
    assert store.spend(Kind.CODE, code, BINDING) is False
    assert store.spend(Kind.CODE, other, BINDING) is True


def test_fifty_threads_spending_one_code_succeed_exactly_once(store):
    code = issue(store)
    results: list[bool] = []
    start = threading.Barrier(50)

    def spend() -> None:
        start.wait(timeout=10)
        results.append(store.spend(Kind.CODE, code, BINDING))

    threads = [threading.Thread(target=spend) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert len(results) == 50
    assert results.count(True) == 1


def test_a_new_secret_never_repeats_one_still_waiting(store, monkeypatch):
    drawn = iter(["same-secret", "same-secret", "other-secre"])  # 8 bytes: the secrets
    public_ids = (f"public-id-{n}" for n in range(10))  # 9 bytes: the ids the admin shows
    monkeypatch.setattr(
        "avenir_mcp.confirmations.codes.secrets.token_urlsafe",
        lambda size: next(drawn if size == 8 else public_ids),
    )

    first, second = issue(store), issue(store)

    assert (first, second) == ("same-secret", "other-secre")
    assert store.spend(Kind.CODE, "same-secret", BINDING) is True
    assert store.spend(Kind.CODE, "other-secre", BINDING) is True
