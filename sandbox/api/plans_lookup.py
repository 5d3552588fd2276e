"""Plan ids in paths: a plan's id, `last-used` (the plan opened most recently) or `default`."""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from sandbox.api.errors import not_found
from sandbox.models import Plan


def resolve_plan(plan_id: str) -> Plan:
    """The plan a path names; 404.2 when there is none."""
    if plan_id == "last-used":
        plan = last_used_plan()
    elif plan_id == "default":
        plan = default_plan() or last_used_plan()
    else:
        plan = Plan.objects.filter(pk=plan_id).first()
    if plan is None:
        raise not_found()
    return plan


def last_used_plan() -> Plan | None:
    """The plan opened most recently; before any was opened, the newest plan."""
    ordering = (F("last_used_on").desc(nulls_last=True), "-created_at")
    return Plan.objects.order_by(*ordering).first()


def default_plan() -> Plan | None:
    """The plan marked default (YNAB: the OAuth app's default plan selection), if any."""
    return Plan.objects.filter(is_default=True).order_by("-created_at").first()


def mark_opened(plan: Plan) -> None:
    """Make `plan` the last-used one (a write only when another plan was opened since)."""
    if plan.last_used_on and not Plan.objects.filter(last_used_on__gt=plan.last_used_on).exists():
        return
    plan.last_used_on = timezone.now()
    Plan.objects.filter(pk=plan.pk).update(last_used_on=plan.last_used_on)
