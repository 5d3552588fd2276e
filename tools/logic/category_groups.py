"""The category groups a new category can be created in (docs/tools.md#list_category_groups)."""

from __future__ import annotations

from ynab_client.snapshot import CategoryGroup, PlanSnapshot

CREDIT_CARD_PAYMENTS = "Credit Card Payments"
"""YNAB's own group of card payment categories: it holds one per card and takes no others."""


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
