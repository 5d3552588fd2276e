"""The persistent map behind snapshots: a dict that never changes, and shares what it can."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from avenir_mcp.ynab_client.snapshot import PersistentMap

keys = st.integers(0, 3000)
steps = st.lists(st.tuples(st.dictionaries(keys, st.integers(), max_size=300), st.lists(keys, max_size=50)))


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(keys, st.integers(), max_size=500), steps)
def test_it_answers_like_a_dict_after_any_updates_and_removals(start, changes):
    expected = dict(start)
    current = PersistentMap(start)
    history = [(current, dict(expected))]
    for updates, removals in changes:
        for key in removals:
            expected.pop(key, None)
        expected.update(updates)
        current = current.evolve(updates, removals)
        history.append((current, dict(expected)))

    for mapping, as_dict in history:  # every version still answers as it did
        assert dict(mapping.items()) == as_dict
        assert len(mapping) == len(as_dict)
        assert sorted(mapping) == sorted(as_dict)
        assert all(mapping[key] == value and key in mapping for key, value in as_dict.items())
        assert mapping.get(-1) is None
        assert -1 not in mapping


def test_an_update_copies_only_the_bucket_it_touches():
    big = PersistentMap({n: n for n in range(50_000)})

    changed = big.evolve({7: "seven"})

    shared = sum(a is b for a, b in zip(big._buckets, changed._buckets, strict=True))
    assert shared == len(big._buckets) - 1
    assert (big[7], changed[7]) == (7, "seven")


def test_an_evolve_that_changes_nothing_returns_the_same_map():
    mapping = PersistentMap({1: 1})

    assert mapping.evolve({}, []) is mapping


def test_its_values_and_items_are_views_like_a_mappings_not_one_pass_iterators():
    # A snapshot hands its maps out as `Mapping`s (`month_categories`): a caller may count
    # or walk `.values()` twice, as the type promises. They were once bare generators.
    mapping = PersistentMap({n: n * 10 for n in range(100)})

    values, items = mapping.values(), mapping.items()

    assert (len(values), len(items)) == (100, 100)
    assert sorted(values) == sorted(values) == [n * 10 for n in range(100)]
    assert 990 in values
    assert (99, 990) in items
    assert (99, 0) not in items
    assert dict(items) == dict(items) == {n: n * 10 for n in range(100)}
