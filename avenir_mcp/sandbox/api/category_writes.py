"""Creating and updating categories and groups, and assigning money in a month."""

from __future__ import annotations

from typing import Any

from avenir_mcp.sandbox import ledger
from avenir_mcp.sandbox.api import params
from avenir_mcp.sandbox.api.categories import category_answer
from avenir_mcp.sandbox.api.fields import MISSING, Body
from avenir_mcp.sandbox.api.goal_input import apply_goal_fields
from avenir_mcp.sandbox.api.http import Answer, SandboxRequest, bad_request, not_found
from avenir_mcp.sandbox.api.plans import sandbox_user_id
from avenir_mcp.sandbox.ledger.budget import load_budget
from avenir_mcp.sandbox.ledger.catalog import create_category, create_category_group, set_budgeted
from avenir_mcp.sandbox.ledger.setup import CREDIT_CARD_GROUP, INTERNAL_GROUP
from avenir_mcp.sandbox.models import Category, CategoryGroup, Plan
from avenir_mcp.sandbox.serialize.categories import GROUP_FIELDS, category_group

GROUP_NAME_MAX = 50
CATEGORY_NAME_MAX = 100


def create_group(call: SandboxRequest, plan: Plan) -> Answer:
    body = Body.wrapped(call.body(), "category_group")
    name = _group_name(body)
    with ledger.plan_write(plan.id) as write:
        group = create_category_group(plan, name)
    return Answer({"category_group": _group(group.pk), "server_knowledge": write.knowledge}, status=201)


def update_group(call: SandboxRequest, plan: Plan, category_group_id: str) -> dict[str, Any]:
    body = Body.wrapped(call.body(), "category_group")
    name = _group_name(body)
    with ledger.plan_write(plan.id) as write:
        group = _writable_group(plan, category_group_id, "category_group_id", missing_is_404=True)
        CategoryGroup.objects.filter(pk=group.pk).update(name=name, knowledge=write.knowledge)
        Category.objects.filter(group=group).update(knowledge=write.knowledge)  # category_group_name
        write.months_changed_from(plan.first_month)
    return {"category_group": _group(group.pk), "server_knowledge": write.knowledge}


def create(call: SandboxRequest, plan: Plan) -> Answer:
    body = Body.wrapped(call.body(), "category")
    name = body.text("name", required=True, nullable=False, max_length=CATEGORY_NAME_MAX, non_blank=True)
    group_id = body.uuid("category_group_id", required=True, nullable=False)
    note = body.text("note")
    with ledger.plan_write(plan.id) as write:
        group = _writable_group(plan, group_id, "category_group_id")
        _require_free_name(group, name)
        created = create_category(plan, group, name, note=None if note is MISSING else note)
        apply_goal_fields(body, created, write.today)
        created.save()
        write.months_changed_from(plan.first_month)
    return Answer(_saved(plan, created.pk, write.knowledge), status=201)


def update(call: SandboxRequest, plan: Plan, category_id: str) -> dict[str, Any]:
    body = Body.wrapped(call.body(), "category")
    name = body.text("name", max_length=CATEGORY_NAME_MAX, non_blank=True)
    note = body.text("note")
    group_id = body.uuid("category_group_id", nullable=False)
    with ledger.plan_write(plan.id) as write:
        target = _editable_category(plan, category_id)
        renamed = name not in (MISSING, None) and name != target.name
        if name not in (MISSING, None):
            target.name = name
        if note is not MISSING:
            target.note = note
        moved = group_id is not MISSING and group_id != target.group_id
        if moved:
            if target.role == Category.ROLE_CREDIT_CARD_PAYMENT:
                raise bad_request("a credit card payment category cannot be moved to another group")
            target.group = _writable_group(plan, group_id, "category_group_id")
        if renamed or moved:
            _require_free_name(target.group, target.name, besides=target.pk)
        apply_goal_fields(body, target, write.today)
        target.knowledge = write.knowledge
        target.save()
        write.months_changed_from(plan.first_month)  # every month lists it with its goal
    return _saved(plan, category_id, write.knowledge)


def update_month(call: SandboxRequest, plan: Plan, month: str, category_id: str) -> dict[str, Any]:
    budgeted = Body.wrapped(call.body(), "category").integer("budgeted", required=True)
    in_month = params.plan_month(month, plan)
    with ledger.plan_write(plan.id) as write:
        target = _editable_category(plan, category_id)
        set_budgeted(plan, target, in_month, budgeted, performed_by=sandbox_user_id())
    budget = load_budget(plan)
    return {"category": category_answer(budget, category_id, in_month), "server_knowledge": write.knowledge}


def _group_name(body: Body) -> str:
    name = body.text("name", required=True, nullable=False, max_length=GROUP_NAME_MAX, non_blank=True)
    if name in (CREDIT_CARD_GROUP, INTERNAL_GROUP):
        raise body.fail(f"name {name!r} is reserved by YNAB")
    return name


def _saved(plan: Plan, category_id: str, knowledge: int) -> dict[str, Any]:
    budget = load_budget(plan)
    return {
        "category": category_answer(budget, category_id, budget.current_month),
        "server_knowledge": knowledge,
    }


def _group(group_id: str) -> dict[str, Any]:
    return category_group(CategoryGroup.objects.filter(pk=group_id).values(*GROUP_FIELDS).get())


def _writable_group(plan: Plan, group_id: str, field: str, *, missing_is_404: bool = False) -> CategoryGroup:
    """A group categories may be created in or moved to: not internal, not Credit Card Payments."""
    group = CategoryGroup.objects.filter(plan=plan, pk=group_id, deleted=False).first()
    if group is None:
        raise not_found() if missing_is_404 else bad_request(f"{field} does not exist in this plan")
    if group.internal:
        raise bad_request(f"{field} must not be an internal category group")
    if group.name == CREDIT_CARD_GROUP:
        raise bad_request(f"{field} must not be the {CREDIT_CARD_GROUP} group")
    return group


def _require_free_name(group: CategoryGroup, name: str, *, besides: str | None = None) -> None:
    """400 when another category of `group` already has `name` (YNAB compares without case)."""
    siblings = Category.objects.filter(group=group, deleted=False).exclude(pk=besides)
    wanted = name.casefold()
    if any(other.casefold() == wanted for other in siblings.values_list("name", flat=True)):
        raise bad_request(f"name {name!r} is already used by another category in this category group")


def _editable_category(plan: Plan, category_id: str) -> Category:
    target = Category.objects.filter(plan=plan, pk=category_id, deleted=False).exclude(
        role=Category.ROLE_SPLIT
    )
    found = target.first()
    if found is None:
        raise not_found()
    if found.internal:
        raise bad_request(f"{found.name} is an internal category and cannot be changed")
    return found
