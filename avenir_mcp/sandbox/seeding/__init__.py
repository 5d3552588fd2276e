"""Seeded sandbox plans: the demo household and generated heavy plans for benchmarks.

- `seed_demo_plan(plan_id=None, today=None) -> Plan`: the invented household (see `demo`).
  `manage.py seed_demo` creates it under `DEMO_PLAN_ID`.
- `seed_heavy_plan(transactions, *, plan_id=None, seed=0, today=None) -> Plan`: a generated
  plan with exactly that many transactions, the same content for the same seed (see `heavy`).
"""

from __future__ import annotations

from avenir_mcp.sandbox.seeding.demo import seed_demo_plan
from avenir_mcp.sandbox.seeding.demo_catalog import DEMO_PLAN_ID, DEMO_PLAN_NAME
from avenir_mcp.sandbox.seeding.heavy import seed_heavy_plan

__all__ = ["DEMO_PLAN_ID", "DEMO_PLAN_NAME", "seed_demo_plan", "seed_heavy_plan"]
