"""Category groups (docs/tools.md#list_category_groups): the ones a new category can be created
in, and the checks of creating and renaming one (docs/tools.md#create_category_group). Pure.

- `creatable_groups(snapshot)`: the groups a category can be created in.
- `group_named(snapshot, name, besides=)`: the group already called `name` (any case) among
  those the person sees (visible ones) and YNAB's own, other than `besides`, if any.
- `renamable_group(snapshot, id)`: a group update_category_group may rename.
"""

from __future__ import annotations

from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import CategoryGroup, PlanSnapshot

CREDIT_CARD_PAYMENTS = "Credit Card Payments"
"""YNAB's own group of card payment categories: it holds one per card and takes no others."""

GROUP_SOURCE = "list_category_groups"
GROUP_NAME_LIMIT = 50


def can_hold_new_categories(group: CategoryGroup) -> bool:
    """False for hidden and internal groups and YNAB's Credit Card Payments group."""
    return not (group.hidden or group.internal or group.name == CREDIT_CARD_PAYMENTS)


def creatable_groups(snapshot: PlanSnapshot) -> list[CategoryGroup]:
    """The groups a category can be created in, by name (case-folded), then id.

    Deleted groups are never in a snapshot. A snapshot does not keep YNAB's own order of
    groups, so the name gives a stable, readable one.
    """
    groups = (group for group in snapshot.category_groups.values() if can_hold_new_categories(group))
    return sorted(groups, key=lambda group: (group.name.casefold(), group.id))


def group_named(snapshot: PlanSnapshot, name: str, *, besides: str | None = None) -> CategoryGroup | None:
    """The visible or internal group other than `besides` already named `name` (any case), if any.
    A hidden group does not hold its name: the person no longer sees it."""
    wanted = name.casefold()
    for group in snapshot.category_groups.values():
        shown = group.internal or not group.hidden
        if shown and group.id != besides and group.name.casefold() == wanted:
            return group
    return None


def group_name_taken_refusal(holder: CategoryGroup) -> Refusal:
    return Refusal(
        f"A category group is already named {quoted(holder.name, 40)} (names are compared without case); "
        "choose another name."
    )


def renamable_group(snapshot: PlanSnapshot, group_id: str) -> CategoryGroup:
    """The group, unless it is unknown, hidden, internal or Credit Card Payments (a `Refusal`)."""
    group = snapshot.category_groups.get(group_id)
    if group is None:
        raise not_in_plan("category group", group_id, GROUP_SOURCE)
    shown = quoted(group.name, 40)
    if group.internal or group.name == CREDIT_CARD_PAYMENTS:
        raise Refusal(
            f"Category group {shown} is one of YNAB's own groups, which keeps its name; choose a group "
            f"from {GROUP_SOURCE}."
        )
    if group.hidden:
        raise Refusal(
            f"Category group {shown} is hidden in YNAB; unhide it in YNAB first, or choose a visible "
            f"group from {GROUP_SOURCE}."
        )
    return group
