"""Category groups, categories and assigned amounts, with their stamps and money movements."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db.models import Max
from django.utils import timezone

from avenir_mcp.sandbox.budget_math.calendar import month_of
from avenir_mcp.sandbox.ledger.session import plan_write
from avenir_mcp.sandbox.models import (
    Category,
    CategoryGroup,
    MoneyMovement,
    MoneyMovementGroup,
    MonthCategory,
    Plan,
)


def create_category_group(plan: Plan, name: str, *, hidden: bool = False) -> CategoryGroup:
    """A category group placed after the existing ones."""
    with plan_write(plan.id) as write:
        last = CategoryGroup.objects.filter(plan=plan).aggregate(last=Max("sort_order"))["last"] or 0
        return CategoryGroup.objects.create(
            plan=plan, knowledge=write.knowledge, name=name, hidden=hidden, sort_order=last + 1
        )


def create_category(plan: Plan, group: CategoryGroup, name: str, **fields: Any) -> Category:
    """A category at the end of `group`; `fields` are other Category fields (goal_*, note, hidden)."""
    with plan_write(plan.id) as write:
        last = Category.objects.filter(group=group).aggregate(last=Max("sort_order"))["last"] or 0
        category = Category.objects.create(
            plan=plan, knowledge=write.knowledge, group=group, name=name, sort_order=last + 1, **fields
        )
        write.forget_rules()
        write.months_changed_from(write.plan.first_month)  # every month lists the new category
        return category


def set_budgeted(
    plan: Plan, category: Category, month: date, budgeted: int, *, performed_by: str | None = None
) -> MonthCategory:
    """Set (not add to) what is assigned to `category` in `month`, recording the money moved
    between it and Ready to Assign (the Ready to Assign side is null, as in YNAB)."""
    month = month_of(month)
    with plan_write(plan.id) as write:
        row, _ = MonthCategory.objects.get_or_create(
            plan=plan, category=category, month=month, defaults={"knowledge": write.knowledge}
        )
        moved = budgeted - row.budgeted
        row.budgeted, row.knowledge = budgeted, write.knowledge
        row.save(update_fields=["budgeted", "knowledge"])
        if moved:
            _record_movement(plan, category, month, moved, write.knowledge, performed_by)
        write.budget_changed(category.id, month)
        return row


def _record_movement(
    plan: Plan, category: Category, month: date, moved: int, knowledge: int, performed_by: str | None
) -> None:
    now = timezone.now()
    group = MoneyMovementGroup.objects.create(
        plan=plan, group_created_at=now, month=month, performed_by_user_id=performed_by, knowledge=knowledge
    )
    MoneyMovement.objects.create(
        plan=plan,
        month=month,
        moved_at=now,
        group=group,
        performed_by_user_id=performed_by,
        from_category=None if moved > 0 else category,
        to_category=category if moved > 0 else None,
        amount=abs(moved),
        knowledge=knowledge,
    )
