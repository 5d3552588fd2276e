"""Changing a category's name, group or target, and creating one (docs/tools.md#write-tools): the checks.
Pure.

- `changeable_category(snapshot, id)`: a category YNAB's API lets us change (not one of
  YNAB's internal ones; deleted ones are not in a snapshot, so they are unknown).
- `destination_group(snapshot, id, creating=)`: a group a category may be moved to or created
  in: not internal, not Credit Card Payments, and for a new category not hidden.
- `name_holder(snapshot, group_id, name, besides=)`: the category of that group already
  called `name` (YNAB compares names without case), if any.
- `category_move(snapshot, id, name, group_id)`: update_category's change, checked.
"""

from __future__ import annotations

from dataclasses import dataclass

from avenir_mcp.tools.logic.budget import is_card_payment, is_internal
from avenir_mcp.tools.logic.category_groups import CREDIT_CARD_PAYMENTS, GROUP_SOURCE
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import Category, CategoryGroup, PlanSnapshot

CATEGORY_SOURCE = "get_category_balances"

__all__ = [
    "CategoryMove",
    "category_move",
    "changeable_category",
    "destination_group",
    "name_holder",
    "name_taken_refusal",
]


def changeable_category(snapshot: PlanSnapshot, category_id: str) -> Category:
    """The category, unless it is unknown or one of YNAB's internal categories (a `Refusal`)."""
    category = snapshot.categories.get(category_id)
    if category is None:
        raise not_in_plan("category", category_id, CATEGORY_SOURCE)
    if is_internal(snapshot, category):
        raise Refusal(
            f"Category {quoted(category.name, 40)} is one of YNAB's internal categories, which YNAB's "
            f"API does not change; choose a category from {CATEGORY_SOURCE}."
        )
    return category


def destination_group(snapshot: PlanSnapshot, group_id: str, *, creating: bool) -> CategoryGroup:
    """The group a category goes to, or a `Refusal`: unknown, internal, Credit Card Payments,
    or (for a new category) hidden."""
    group = snapshot.category_groups.get(group_id)
    if group is None:
        raise not_in_plan("category group", group_id, GROUP_SOURCE)
    shown = quoted(group.name, 40)
    if group.internal:
        raise Refusal(
            f"Category group {shown} is YNAB's internal group and takes no categories; "
            f"choose a group from {GROUP_SOURCE}."
        )
    if group.name == CREDIT_CARD_PAYMENTS:
        raise Refusal(
            f"Category group {shown} holds only the payment categories YNAB makes for credit cards; "
            f"choose another group from {GROUP_SOURCE}."
        )
    if creating and group.hidden:
        raise Refusal(
            f"Category group {shown} is hidden in YNAB; choose a visible group from {GROUP_SOURCE}, "
            "or unhide it in YNAB first."
        )
    return group


def name_holder(
    snapshot: PlanSnapshot, group_id: str, name: str, *, besides: str | None = None
) -> Category | None:
    """The category of the group already named `name` (any case), other than `besides`."""
    wanted = name.casefold()
    for category in snapshot.categories_in_group(group_id):
        if category.id != besides and category.name.casefold() == wanted:
            return category
    return None


def name_taken_refusal(name: str, group: CategoryGroup) -> Refusal:
    return Refusal(
        f"Category group {quoted(group.name, 40)} already has a category named {quoted(name, 40)} "
        "(names are compared without case); choose another name."
    )


@dataclass(frozen=True)
class CategoryMove:
    """A category's name and group before and after update_category."""

    category: Category
    from_name: str
    to_name: str
    from_group: CategoryGroup | None
    to_group: CategoryGroup | None

    @property
    def from_group_id(self) -> str:
        return self.category.category_group_id

    @property
    def to_group_id(self) -> str:
        return self.to_group.id if self.to_group is not None else self.from_group_id

    @property
    def unchanged(self) -> bool:
        return self.from_name == self.to_name and self.from_group_id == self.to_group_id


def category_move(
    snapshot: PlanSnapshot, category_id: str, name: str | None, group_id: str | None
) -> CategoryMove:
    """The category renamed to `name` and/or moved to `group_id` (None: kept), or a `Refusal`."""
    category = changeable_category(snapshot, category_id)
    current_group = snapshot.category_groups.get(category.category_group_id)
    to_group = current_group
    if group_id is not None and group_id != category.category_group_id:
        if is_card_payment(snapshot, category):
            raise Refusal(
                f"Category {quoted(category.name, 40)} is a credit card payment category: YNAB keeps it "
                "in Credit Card Payments; it can be renamed but not moved."
            )
        to_group = destination_group(snapshot, group_id, creating=False)
    move = CategoryMove(category, category.name, name or category.name, current_group, to_group)
    if not move.unchanged and to_group is not None:
        holder = name_holder(snapshot, move.to_group_id, move.to_name, besides=category.id)
        if holder is not None:
            raise name_taken_refusal(move.to_name, to_group)
    return move
