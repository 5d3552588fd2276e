"""Merging deltas: a plan kept current by deltas equals the same plan read afresh.

A generated server (`plan_json.World`) changes every kind of entity at random; the cache's
merge follows it through deltas taken at random moments. At the end the merged snapshot
must equal a snapshot built from a fresh full export, entity by entity and index by index,
and every index must agree with a plain scan of the entities.
"""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from avenir_mcp.ynab_client.cache import apply_delta
from avenir_mcp.ynab_client.errors import MalformedAnswer
from avenir_mcp.ynab_client.snapshot import parse_plan_delta
from tests.ynab import plan_json as pj
from tests.ynab.compare import differences, index_errors

ACCOUNTS = ["a0", "a1", "a2"]
GROUPS = ["g0", "g1"]
CATEGORIES = ["c0", "c1", "c2", "c3"]
PAYEES = ["p0", "p1", "p2"]
TRANSACTIONS = [f"t{n}" for n in range(8)]
SCHEDULES = ["x0", "x1"]
MONTHS = ["2026-01-01", "2026-02-01", "2026-03-01"]
NAMES = ["Rent", "rent", "Food", "Zoo"]  # ties after case-folding test the id tie-break

dates = st.builds(lambda m, d: f"2026-0{m}-{d:02d}", st.integers(1, 3), st.integers(1, 28))


def maybe(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.none() | strategy


def _change(world: pj.World, data: st.DataObject) -> None:
    """One random write on the server, of any kind."""
    kind = data.draw(st.sampled_from(CHANGES))
    kind(world, data)


def _account(world, data):
    if data.draw(st.booleans()):
        world.delete("accounts", data.draw(st.sampled_from(ACCOUNTS)))
        return
    name, balance = data.draw(st.sampled_from(NAMES)), data.draw(st.integers(-(10**9), 10**9))
    world.put("accounts", pj.account(data.draw(st.sampled_from(ACCOUNTS)), name=name, balance=balance))


def _category(world, data):
    cid = data.draw(st.sampled_from(CATEGORIES))
    if data.draw(st.integers(0, 4)) == 0:
        world.delete("categories", cid)
        return
    group = data.draw(st.sampled_from(GROUPS))
    world.put("category_groups", pj.category_group(group, name=data.draw(st.sampled_from(NAMES))))
    world.put("categories", pj.category(cid, group, name=data.draw(st.sampled_from(NAMES))))


def _payee(world, data):
    pid = data.draw(st.sampled_from(PAYEES))
    if data.draw(st.integers(0, 3)) == 0:
        world.delete("payees", pid)
        world.delete("payee_locations", f"{pid}-loc")
        return
    world.put("payees", pj.payee(pid, name=data.draw(st.sampled_from(NAMES))))
    world.put("payee_locations", pj.payee_location(f"{pid}-loc", pid))


def _transaction(world, data):
    tid = data.draw(st.sampled_from(TRANSACTIONS))
    if world.entities["transactions"].get(tid, {}).get("deleted"):
        return  # YNAB never brings a deleted transaction back under the same id
    if data.draw(st.integers(0, 3)) == 0:
        _delete_transaction(world, tid, tell_lines=data.draw(st.booleans()))
        return
    split = data.draw(st.booleans())
    world.put(
        "transactions",
        pj.transaction(
            tid,
            data.draw(st.sampled_from(ACCOUNTS)),
            date=data.draw(dates),
            amount=data.draw(st.integers(-(10**6), 10**6)),
            category_id="split" if split else data.draw(maybe(st.sampled_from(CATEGORIES))),
            payee_id=data.draw(maybe(st.sampled_from(PAYEES))),
        ),
    )
    _replace_lines(world, tid, data.draw(st.integers(2, 3)) if split else 0, data)


def _replace_lines(world, tid, count, data):
    for line_id, line in world.entities["subtransactions"].items():
        if line["transaction_id"] == tid and not line["deleted"] and int(line_id[-1]) >= count:
            world.delete("subtransactions", line_id)
    for n in range(count):
        line = pj.subtransaction(
            f"{tid}-s{n}",
            tid,
            amount=data.draw(st.integers(-1000, 1000)),
            category_id=data.draw(maybe(st.sampled_from(CATEGORIES))),
            payee_id=data.draw(maybe(st.sampled_from(PAYEES))),
        )
        world.put("subtransactions", line)


def _delete_transaction(world, tid, *, tell_lines: bool):
    world.delete("transactions", tid)
    # Whether or not the server reports the lines deleted, they must go with their parent.
    for line_id, line in world.entities["subtransactions"].items():
        if line["transaction_id"] == tid:
            world.delete("subtransactions", line_id, reported=tell_lines)


def _month(world, data):
    day, cid = data.draw(st.sampled_from(MONTHS)), data.draw(st.sampled_from(CATEGORIES))
    group = data.draw(st.sampled_from(GROUPS))
    world.put_month_category(day, pj.category(cid, group, budgeted=data.draw(st.integers(0, 10**7))))


def _schedule(world, data):
    sid = data.draw(st.sampled_from(SCHEDULES))
    if data.draw(st.integers(0, 3)) == 0:
        world.delete("scheduled_transactions", sid)
        world.delete("scheduled_subtransactions", f"{sid}-s0")
        return
    world.put(
        "scheduled_transactions", pj.scheduled_transaction(sid, "a0", amount=data.draw(st.integers(-9, 9)))
    )
    world.put("scheduled_subtransactions", pj.scheduled_subtransaction(f"{sid}-s0", sid, amount=-1))


CHANGES = [_account, _category, _payee, _transaction, _transaction, _month, _schedule]


def _fresh(world: pj.World):
    return apply_delta(None, parse_plan_delta(world.export()))


@pytest.mark.matrix  # 150 generated plans (5 s); make test runs it
@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_plan_merged_from_deltas_equals_the_plan_read_afresh(data):
    world = pj.World()
    for _ in range(data.draw(st.integers(0, 6))):
        _change(world, data)
    world.commit()
    merged = _fresh(world)
    for _ in range(data.draw(st.integers(1, 25))):
        _change(world, data)
        world.commit()
        if data.draw(st.booleans()):
            merged = apply_delta(merged, parse_plan_delta(world.delta_since(merged.server_knowledge)))
    merged = apply_delta(merged, parse_plan_delta(world.delta_since(merged.server_knowledge)))

    fresh = _fresh(world)

    assert differences(merged, fresh) == []
    assert index_errors(merged) == []
    assert index_errors(fresh) == []


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_merging_never_changes_the_snapshot_it_started_from(data):
    world = pj.World()
    for _ in range(5):
        _change(world, data)
    world.commit()
    before = _fresh(world)
    copy_of_before = _fresh(world)
    for _ in range(data.draw(st.integers(1, 10))):
        _change(world, data)
    world.commit()

    apply_delta(before, parse_plan_delta(world.delta_since(before.server_knowledge)))

    assert differences(before, copy_of_before) == []


def test_a_split_is_found_under_each_of_its_lines_categories_newest_first():
    world = pj.World()
    world.put("accounts", pj.account("a0"))
    world.put("transactions", pj.transaction("old", "a0", date="2026-01-05", amount=-5, category_id="c1"))
    world.put("transactions", pj.transaction("split", "a0", date="2026-02-03", amount=-30, category_id="s"))
    world.put("subtransactions", pj.subtransaction("l1", "split", amount=-10, category_id="c1"))
    world.put("subtransactions", pj.subtransaction("l2", "split", amount=-20, category_id="c2"))
    world.commit()

    snapshot = _fresh(world)

    assert [t.id for t in snapshot.transactions_in_category("c1")] == ["split", "old"]
    assert [t.id for t in snapshot.transactions_in_category("c2")] == ["split"]
    assert [line.amount for line in snapshot.subtransactions_of("split")] == [-10, -20]
    assert [t.id for t in snapshot.transactions_in_month(date(2026, 2, 17))] == ["split"]
    assert [t.id for t in snapshot.transactions_between(date(2026, 1, 1), date(2026, 1, 31))] == ["old"]


def test_an_unchanged_delta_keeps_every_entity_and_index_shared():
    world = pj.World()
    world.put("accounts", pj.account("a0"))
    world.put("transactions", pj.transaction("t0", "a0", date="2026-01-05", amount=-5))
    world.commit()
    snapshot = _fresh(world)

    again = apply_delta(snapshot, parse_plan_delta(world.delta_since(snapshot.server_knowledge)))

    assert again.transactions is snapshot.transactions
    assert again.transactions_by_account is snapshot.transactions_by_account
    assert again.server_knowledge == snapshot.server_knowledge


def test_the_settings_come_with_the_plan_and_amounts_stay_integer_milliunits():
    world = pj.World()
    world.put("accounts", pj.account("a0", balance=-123_450))
    world.commit()

    snapshot = _fresh(world)

    assert snapshot.settings.currency_format.decimal_separator == ","
    assert snapshot.settings.date_format == "DD/MM/YYYY"
    assert snapshot.accounts["a0"].balance == -123_450
    assert type(snapshot.accounts["a0"].balance) is int
    assert snapshot.accounts["a0"].debt_interest_rates == ((date(2026, 1, 1), 4250),)


def test_a_month_ynab_reports_deleted_leaves_the_plan_with_its_figures():
    world = pj.World()
    for day in MONTHS:
        world.put_month_category(day, pj.category("c0", "g0", budgeted=1_000))
    world.commit()
    snapshot = _fresh(world)
    delta = world.delta_since(snapshot.server_knowledge)
    delta["plan"]["months"] = [{"month": "2026-02-01", "deleted": True}]

    after = apply_delta(snapshot, parse_plan_delta(delta))

    assert sorted(after.months) == [date(2026, 1, 1), date(2026, 3, 1)]
    assert sorted(after.month_figures) == [date(2026, 1, 1), date(2026, 3, 1)]
    assert after.month_figures[date(2026, 3, 1)]["c0"].budgeted == 1_000


@pytest.mark.parametrize(
    ("spoil", "reason"),
    [
        (lambda plan: plan.pop("name"), "missing 'name'"),
        (lambda plan: plan["accounts"][0].update(balance=12.5), "expected an integer amount, got float"),
        (lambda plan: plan["accounts"][0].update(balance="12500"), "expected an integer amount, got str"),
        # A required date that is null: once parsed as a dateless transaction (or month, or
        # schedule), which the merge then failed on with an AttributeError.
        (lambda plan: plan["transactions"][0].update(date=None), "expected a date, got NoneType"),
        (lambda plan: plan["transactions"][0].update(cleared="pending"), "unknown cleared status 'pending'"),
        (lambda plan: plan["transactions"][0].update(cleared=["cleared"]), "unhashable type: 'list'"),
        (lambda plan: plan["months"][0].update(month=None), "expected a date, got NoneType"),
        (
            lambda plan: plan["scheduled_transactions"][0].update(date_next=None),
            "expected a date, got NoneType",
        ),
        (
            lambda plan: plan["scheduled_transactions"][0].update(date_first=20260101),
            "expected a date, got int",
        ),
    ],
)
def test_an_export_not_in_ynabs_shape_is_refused_as_malformed_never_guessed(spoil, reason):
    world = pj.World()
    world.put("accounts", pj.account("a0", balance=1_000))
    world.put("transactions", pj.transaction("t0", "a0", date="2026-01-02", amount=-1_000))
    world.put("scheduled_transactions", pj.scheduled_transaction("x0", "a0", amount=-500))
    world.put_month_category("2026-01-01", pj.category("c0", "g0"))
    world.commit()
    export = world.export()
    spoil(export["plan"])

    with pytest.raises(MalformedAnswer) as malformed:
        parse_plan_delta(export)

    assert malformed.value.message.startswith(
        f"YNAB's answer for the plan was not in the shape this service expects ({reason}); "
    )
    assert malformed.value.status == 200


def test_many_changes_to_one_account_in_one_delta_keep_its_index_in_order():
    world = pj.World()
    world.put("accounts", pj.account("a0"))
    for n in range(10):
        world.put("transactions", pj.transaction(f"old{n}", "a0", date=f"2026-01-{n + 1:02d}", amount=-n))
    world.commit()
    snapshot = _fresh(world)
    for n in range(30):  # an import: far more than a few bisections' worth
        world.put(
            "transactions", pj.transaction(f"new{n:02d}", "a0", date=f"2026-02-{n % 28 + 1:02d}", amount=n)
        )
    world.delete("transactions", "old3")
    world.commit()

    merged = apply_delta(snapshot, parse_plan_delta(world.delta_since(snapshot.server_knowledge)))

    assert differences(merged, _fresh(world)) == []
    assert index_errors(merged) == []
    listed = [t.id for t in merged.transactions_in_account("a0")]
    assert len(listed) == 39
    assert "old3" not in listed
    assert listed[:2] == ["new27", "new26"]
    assert listed[-1] == "old0"
