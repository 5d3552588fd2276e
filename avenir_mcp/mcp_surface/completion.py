"""`completion/complete`: ids for a prompt's or resource template's argument, by name prefix.

Completion is keyed by the argument's name, whatever prompt or template asks, so every
argument named `plan_id`, `account_id` or `category_id` is completed with no code of its own.
The value typed so far matches the start of a name (case-insensitive; also the start of any
word of it) or of an id; the values offered are ids, in the order the person reads them
(plans as YNAB lists them, open accounts as `list_accounts`, categories as YNAB orders them,
hidden and internal ones left out), at most 100 (MCP's limit).

An account or category is looked up in the plan the client already chose (`plan_id` among the
context arguments), else in the default plan. Plans come from the plan listing reused for a
few minutes (no request while fresh); accounts and categories from the plan snapshot (one
delta request once warm). When the plan cannot be read (no default among several plans,
YNAB unreachable), nothing is offered: completion is a convenience, the call itself will say
what is wrong.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from mcp.types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
)

from avenir_mcp import ynab_client
from avenir_mcp.mcp_surface.plan_lookup import open_plan, plan_listing
from avenir_mcp.tools.logic.accounts import listed_accounts
from avenir_mcp.values.refusal import Refusal

logger = logging.getLogger(__name__)

LAST_USED = "last-used"
"""Also offered for `plan_id`: the plan last opened in YNAB (docs/conventions.md#arguments)."""

MOST = 100
"""MCP's limit on the values of one completion."""

Named = tuple[str, str]
"""(id, name) of something an argument can name."""


async def complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion | None:
    """The ids that `argument.value` starts naming, for the argument's name; None when the
    argument is not an id avenir-mcp completes."""
    candidates = _CANDIDATES.get(argument.name)
    if candidates is None:
        return None
    chosen_plan = (context.arguments or {}).get("plan_id") if context is not None else None
    try:
        named = await candidates(chosen_plan or None)
    except (Refusal, ynab_client.YnabError) as error:
        logger.info("Nothing to complete %s with: %s", argument.name, error)
        return Completion(values=[], total=0, has_more=False)
    found = [identifier for identifier, name in named if _matches(argument.value, identifier, name)]
    return Completion(values=found[:MOST], total=len(found), has_more=len(found) > MOST)


def _matches(typed: str, identifier: str, name: str) -> bool:
    """Whether `typed` starts the name, a word of it, or the id (case-insensitive)."""
    typed = typed.strip().casefold()
    if not typed:
        return True
    words = name.casefold().split()
    return (
        name.casefold().startswith(typed)
        or any(word.startswith(typed) for word in words)
        or identifier.casefold().startswith(typed)
    )


async def _plans(_plan_id: str | None) -> list[Named]:
    listing = await plan_listing()
    return [(plan.id, plan.name) for plan in listing.plans] + [(LAST_USED, LAST_USED)]


async def _accounts(plan_id: str | None) -> list[Named]:
    snapshot = await open_plan(plan_id)
    return [(account.id, account.name) for account in listed_accounts(snapshot) if not account.closed]


async def _categories(plan_id: str | None) -> list[Named]:
    snapshot = await open_plan(plan_id)
    return [
        (category.id, category.name)
        for category in snapshot.categories.values()
        if not (category.hidden or category.internal)
    ]


_CANDIDATES: dict[str, Callable[[str | None], Awaitable[list[Named]]]] = {
    "plan_id": _plans,
    "account_id": _accounts,
    "category_id": _categories,
}
