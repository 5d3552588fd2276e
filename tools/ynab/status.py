"""How the YNAB side stands, for `/api/health` and the admin (no request is sent to YNAB).

`ynab_status()` reads the configured client's budget (requests in the last hour, from the
`YnabRequest` rows, synchronous), its pacing (paused after a 429?) and the plans cached for
that YNAB and token.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from tools.ynab.cache import PlanCacheState, plan_cache
from tools.ynab.client import get_ynab_client
from tools.ynab.pacing import reserve_of
from tools.ynab.records import requests_last_hour


@dataclass(frozen=True, slots=True)
class YnabStatus:
    base_url: str
    token: str  # "personal" (YNAB_API_KEY) or "sandbox"; never the token itself
    requests_last_hour: int
    limit: int | None  # None: not paced (a sandbox)
    read_limit: int | None  # where reads stop, keeping the rest of the hour for writes
    paused_until: datetime | None
    plans: list[PlanCacheState]


def ynab_status() -> YnabStatus:
    """The configured YNAB's budget and cache; call from synchronous code (it counts rows)."""
    client = get_ynab_client()
    plans = [
        state
        for state in plan_cache.states()
        if (state.base_url, state.token_tag) == (client.base_url, client.token_tag)
    ]
    limit = client.sender.pacer.limit
    return YnabStatus(
        base_url=client.base_url,
        token="personal" if settings.YNAB_API_KEY else "sandbox",
        requests_last_hour=requests_last_hour(client.token_tag),
        limit=limit,
        read_limit=None if limit is None else limit - reserve_of(limit),
        paused_until=client.sender.pacer.paused_until(),
        plans=sorted(plans, key=lambda state: (state.name.casefold(), state.plan_id)),
    )
