"""The fingerprint: SHA-256 of the canonical JSON of [plan_id, subject]
(docs/confirmation.md#subjects-and-the-fingerprint)."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.confirmations.fingerprint import fingerprint

json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=25,
)
changes = st.lists(
    st.fixed_dictionaries(
        {"transaction_id": st.text(min_size=1, max_size=10), "category_id": st.text(max_size=10)}
    ),
    max_size=12,
)


def test_it_is_the_sha256_of_compact_sorted_json_of_the_plan_and_the_subject():
    subject = {"month": "2026-09-01", "category_id": "c1", "amount": 150000, "note": "café"}
    expected_text = '["plan-1",{"amount":150000,"category_id":"c1","month":"2026-09-01","note":"café"}]'

    assert fingerprint("plan-1", subject) == hashlib.sha256(expected_text.encode("utf-8")).hexdigest()
    assert re.fullmatch(r"[0-9a-f]{64}", fingerprint("plan-1", subject))


def test_it_sorts_every_list_inside_the_subject_by_its_elements_json():
    subject = {"changes": [{"t": "b", "c": "x"}, {"t": "a", "c": "y"}], "ids": [[3, 1], [0]]}
    expected_text = '["p",{"changes":[{"c":"x","t":"b"},{"c":"y","t":"a"}],"ids":[[0],[1,3]]}]'

    assert fingerprint("p", subject) == hashlib.sha256(expected_text.encode()).hexdigest()


@given(items=changes, data=st.data())
def test_the_order_of_a_list_of_changes_never_matters(items, data):
    shuffled = data.draw(st.permutations(items))

    assert fingerprint("plan", {"changes": items}) == fingerprint("plan", {"changes": shuffled})


@given(subject=st.dictionaries(st.text(max_size=8), json_values, max_size=6))
def test_the_order_in_which_keys_were_given_never_matters(subject):
    reversed_keys = dict(reversed(list(subject.items())))

    assert fingerprint("plan", subject) == fingerprint("plan", reversed_keys)


@given(
    plan_a=st.text(max_size=20), plan_b=st.text(max_size=20), subject=st.dictionaries(st.text(), json_values)
)
def test_a_different_plan_gives_a_different_fingerprint(plan_a, plan_b, subject):
    if plan_a != plan_b:
        assert fingerprint(plan_a, subject) != fingerprint(plan_b, subject)
    else:
        assert fingerprint(plan_a, subject) == fingerprint(plan_b, subject)


@given(amount=st.integers(), other=st.integers())
def test_a_different_amount_gives_a_different_fingerprint(amount, other):
    same = amount == other

    assert (fingerprint("p", {"amount": amount}) == fingerprint("p", {"amount": other})) is same


def test_a_repeated_change_is_not_the_same_as_a_single_one():
    once = {"changes": [{"t": "a"}]}
    twice = {"changes": [{"t": "a"}, {"t": "a"}]}

    assert fingerprint("p", once) != fingerprint("p", twice)


def test_true_and_one_are_different_values():
    assert fingerprint("p", {"approved": True}) != fingerprint("p", {"approved": 1})


@pytest.mark.parametrize(
    ("plan_id", "subject", "refusal"),
    [
        ("p", {"amount": 1.5}, "floats cannot be fingerprinted (use integer milliunits): 1.5"),
        ("p", {"amounts": [1, 2.0]}, "floats cannot be fingerprinted (use integer milliunits): 2.0"),
        ("p", {1: "not a string key"}, "subject keys must be strings, not int: 1"),
        ("p", {"when": {3}}, "set cannot be fingerprinted: {3}"),
        (7, {"amount": 1}, "plan_id must be a string, not int"),
        ("p", [{"amount": 1}], "a subject is a dict, not list"),
    ],
)
def test_it_refuses_what_cannot_be_fingerprinted_faithfully_and_says_why(plan_id, subject, refusal):
    """A tool that built such a subject has a bug: it fails loudly, naming what it passed."""
    with pytest.raises(TypeError) as refused:
        fingerprint(plan_id, subject)
    assert str(refused.value) == refusal
