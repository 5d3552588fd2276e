"""Whatever a client sends to a write, the sandbox answers YNAB's envelope, never a 500."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.sandbox.plans import SmallPlan, small_plan

ids = st.sampled_from(["", "not-an-id", "00000000-0000-4000-8000-000000000000"])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text(max_size=8), ids)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
FIELDS = [
    "account_id",
    "date",
    "amount",
    "payee_id",
    "payee_name",
    "category_id",
    "memo",
    "cleared",
    "approved",
    "flag_color",
    "import_id",
    "subtransactions",
    "id",
    "name",
    "category_group_id",
    "goal_target",
    "goal_target_date",
    "goal_frequency",
    "budgeted",
    "frequency",
    "type",
    "balance",
    "note",
]
objects = st.dictionaries(st.sampled_from(FIELDS), values, max_size=5)
WRITES = [
    ("post", "/transactions", "transaction"),
    ("post", "/transactions", "transactions"),
    ("patch", "/transactions", "transactions"),
    ("post", "/accounts", "account"),
    ("post", "/categories", "category"),
    ("post", "/category_groups", "category_group"),
    ("post", "/payees", "payee"),
    ("post", "/scheduled_transactions", "scheduled_transaction"),
    ("patch", "/months/current/categories/{groceries}", "category"),
    ("patch", "/categories/{groceries}", "category"),
]


@pytest.fixture(scope="module")
def fuzz_home() -> SmallPlan:
    return small_plan("Fuzzed household")


@pytest.mark.parametrize(("method", "path", "member"), WRITES)
def test_fuzzed_writes_get_an_answer_not_an_internal_error(api, fuzz_home, method, path, member):
    url = f"/plans/{fuzz_home.id}{path.format(groceries=fuzz_home.groceries)}"

    @hypothesis_settings(
        max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(body=st.one_of(objects, st.lists(objects, max_size=3), values))
    def answer(body):
        payload = {member: body}
        response = api.request(method.upper(), url, json=payload)
        assert response.status_code < 500, (payload, response.text)
        assert ("data" in response.json()) == (response.status_code < 400)

    answer()


READS = [
    "",
    "/accounts",
    "/categories",
    "/months",
    "/payees",
    "/transactions",
    "/scheduled_transactions",
    "/accounts/{checking}/transactions",
    "/categories/{groceries}/transactions",
    "/months/{month}/transactions",
]
ODD_QUERIES = [
    {"last_knowledge_of_server": "-1"},
    {"last_knowledge_of_server": "abc"},
    {"last_knowledge_of_server": "9" * 30},
    {"since_date": "2026-02-30"},
    {"until_date": "soon"},
    {"type": "everything"},
    {"include_accounts": "maybe"},
]


@pytest.mark.parametrize("path", READS)
def test_odd_query_values_get_a_400_or_an_answer_never_a_500(api, fuzz_home, path):
    url = f"/plans/{fuzz_home.id}" + path.format(
        checking=fuzz_home.checking, groceries=fuzz_home.groceries, month=fuzz_home.this_month.isoformat()
    )

    statuses = {api.get(url, params=query).status_code for query in ODD_QUERIES}

    assert statuses <= {200, 400}


@pytest.mark.parametrize("month", ["2026-13-01", "13", "current2", "0001-01-01", "9999-12-01"])
def test_odd_months_are_refused_not_crashed_on(api, fuzz_home, month):
    response = api.get(f"/plans/{fuzz_home.id}/months/{month}")

    assert response.status_code in (400, 404)
    assert response.json()["error"]["id"] in ("400", "404.2")
