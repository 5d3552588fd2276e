"""Payees (list with delta, one, create, rename) and payee locations (read only)."""

from __future__ import annotations

from typing import Any

from avenir_mcp.sandbox.api.fields import MISSING, Body
from avenir_mcp.sandbox.api.http import Answer, SandboxRequest, bad_request, not_found
from avenir_mcp.sandbox.api.params import changed, since
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.models import Payee, PayeeLocation, Plan
from avenir_mcp.sandbox.serialize.payees import LOCATION_FIELDS, PAYEE_FIELDS, payee, payee_location


def list_payees(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    knowledge = plan.server_knowledge
    rows = changed(Payee.objects.filter(plan=plan), since(call)).values(*PAYEE_FIELDS)
    return {"payees": [payee(row) for row in rows], "server_knowledge": knowledge}


def get_payee(call: SandboxRequest, plan: Plan, payee_id: str) -> dict[str, Any]:
    return {"payee": payee(_live_payee(plan, payee_id))}


def create_payee(call: SandboxRequest, plan: Plan) -> Answer:
    name = Body.wrapped(call.body(), "payee").text(
        "name", required=True, nullable=False, max_length=500, non_blank=True
    )
    with plan_write(plan.id) as write:
        _require_free_name(plan, name)
        created = Payee.objects.create(plan=plan, name=name, knowledge=write.knowledge)
    row = Payee.objects.filter(pk=created.pk).values(*PAYEE_FIELDS).get()
    return Answer({"payee": payee(row), "server_knowledge": write.knowledge}, status=201)


def update_payee(call: SandboxRequest, plan: Plan, payee_id: str) -> dict[str, Any]:
    body = Body.wrapped(call.body(), "payee")
    name = body.text("name", nullable=False, max_length=500, non_blank=True)
    with plan_write(plan.id) as write:
        row = _live_payee(plan, payee_id)
        if name is not MISSING and name != row["name"]:
            if row["transfer_account_id"]:
                raise bad_request("name of a transfer payee cannot be changed")
            _require_free_name(plan, name, besides=payee_id)
            Payee.objects.filter(pk=payee_id).update(name=name, knowledge=write.knowledge)
    return {"payee": payee(_live_payee(plan, payee_id)), "server_knowledge": write.knowledge}


def list_payee_locations(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    rows = PayeeLocation.objects.filter(plan=plan, deleted=False).values(*LOCATION_FIELDS)
    return {"payee_locations": [payee_location(row) for row in rows]}


def get_payee_location(call: SandboxRequest, plan: Plan, payee_location_id: str) -> dict[str, Any]:
    row = PayeeLocation.objects.filter(plan=plan, pk=payee_location_id, deleted=False).values(
        *LOCATION_FIELDS
    )
    found = row.first()
    if found is None:
        raise not_found()
    return {"payee_location": payee_location(found)}


def list_locations_of_payee(call: SandboxRequest, plan: Plan, payee_id: str) -> dict[str, Any]:
    _live_payee(plan, payee_id)
    rows = PayeeLocation.objects.filter(plan=plan, payee_id=payee_id, deleted=False).values(*LOCATION_FIELDS)
    return {"payee_locations": [payee_location(row) for row in rows]}


def _require_free_name(plan: Plan, name: str, *, besides: str | None = None) -> None:
    """400 when another payee of the plan already has `name` (without case): the API cannot merge payees."""
    others = Payee.objects.filter(plan=plan, deleted=False).exclude(pk=besides)
    wanted = name.casefold()
    if any(other.casefold() == wanted for other in others.values_list("name", flat=True)):
        raise bad_request(f"name {name!r} is already used by another payee")


def _live_payee(plan: Plan, payee_id: str) -> dict[str, Any]:
    row = Payee.objects.filter(plan=plan, pk=payee_id, deleted=False).values(*PAYEE_FIELDS).first()
    if row is None:
        raise not_found()
    return row
