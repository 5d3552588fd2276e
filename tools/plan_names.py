"""Plans by name on the pages people read (the admin), instead of a 36-character id.

Names come from what this process already knows, without a request to YNAB: the plans the
plan cache holds, and the embedded sandbox's own plans. A plan known to neither shows the
first 8 characters of its id (the whole id stays in the page, as a tooltip or beside it).
"""

from __future__ import annotations

from sandbox.models import Plan as SandboxPlan
from tools.ynab.cache import plan_cache

SHORT_ID_LENGTH = 8


def plan_names() -> dict[str, str]:
    """Plan id → name for every plan this process knows (one query, no YNAB request)."""
    names = dict(SandboxPlan.objects.values_list("id", "name"))
    names.update((state.plan_id, state.name) for state in plan_cache.states() if state.name)
    return names


def plan_label(plan_id: str, names: dict[str, str]) -> str:
    """The plan's name, else the start of its id (`de000000…`)."""
    if plan_id in names:
        return names[plan_id]
    return plan_id if len(plan_id) <= SHORT_ID_LENGTH else plan_id[:SHORT_ID_LENGTH] + "…"
