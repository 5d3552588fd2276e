"""Plans a whole test module reads and none of its tests writes: seeded once, checked unchanged.

Seeding a plan (and the service's first, cold read of it) is most of a read test's time, so a
module whose tests only read shares one plan (a module-scoped fixture wrapped in
`read_only`). A test that writes takes a plan of its own; if one writes to the shared plan
anyway, the module's last test errors at teardown, naming the plan.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from avenir_mcp.sandbox import models as sandbox
from avenir_mcp.sandbox.ledger.copying import PLAN_ROWS


def plan_state(plan_id: str) -> str:
    """A digest of everything the sandbox holds for the plan (its knowledge and every row)."""
    digest = hashlib.sha256()
    plan = sandbox.Plan.objects.filter(pk=plan_id).values_list(
        "server_knowledge", "first_month", "last_month"
    )
    digest.update(repr(list(plan)).encode())
    for model in PLAN_ROWS:
        digest.update(repr(list(model.objects.filter(plan_id=plan_id).order_by("pk").values_list())).encode())
    return digest.hexdigest()


@contextmanager
def read_only(plan: sandbox.Plan) -> Iterator[sandbox.Plan]:
    """`plan`, shared by tests that only read it: fails afterwards if any of them changed it."""
    before = plan_state(plan.id)
    yield plan
    assert plan_state(plan.id) == before, (
        f"a test wrote to plan {plan.id}, which its module shares read-only: give that test a plan of its own"
    )
