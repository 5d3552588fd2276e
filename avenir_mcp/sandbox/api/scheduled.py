"""Scheduled transactions: list (delta), one, create, update, delete.

Refusals: the date must be after today and at most 5 years ahead; credit card payment
categories are not permitted; split scheduled transactions cannot be created (nor can an
existing split's amount or category change); memo <= 500, payee_name <= 200.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from typing import Any

from django.db.models import QuerySet

from avenir_mcp.sandbox.api.fields import MISSING, Body
from avenir_mcp.sandbox.api.http import Answer, SandboxRequest, not_found
from avenir_mcp.sandbox.api.params import changed, since
from avenir_mcp.sandbox.api.transaction_input import FLAGS, PlanReferences
from avenir_mcp.sandbox.budget_math.calendar import add_years_clamped
from avenir_mcp.sandbox.ledger import plan_write
from avenir_mcp.sandbox.ledger.payees import payee_named
from avenir_mcp.sandbox.models import Category, Plan, ScheduledSubtransaction, ScheduledTransaction
from avenir_mcp.sandbox.serialize.money import MoneyFormat
from avenir_mcp.sandbox.serialize.names import load_names
from avenir_mcp.sandbox.serialize.scheduled import SCHEDULED_KEYS, SCHEDULED_SUB_FIELDS, scheduled_detail

FREQUENCIES = tuple(value for value, _ in ScheduledTransaction.FREQUENCIES)


def list_scheduled(call: SandboxRequest, plan: Plan) -> dict[str, Any]:
    knowledge = plan.server_knowledge
    rows = changed(ScheduledTransaction.objects.filter(plan=plan), since(call))
    return {"scheduled_transactions": _details(plan, rows), "server_knowledge": knowledge}


def get_scheduled(call: SandboxRequest, plan: Plan, scheduled_transaction_id: str) -> dict[str, Any]:
    return {"scheduled_transaction": _one(plan, scheduled_transaction_id)}


def create_scheduled(call: SandboxRequest, plan: Plan) -> Answer:
    body = Body.wrapped(call.body(), "scheduled_transaction")
    with plan_write(plan.id) as write:
        fields = _read(body, PlanReferences(plan), write.today)
        fields.setdefault("frequency", "never")
        fields.setdefault("amount", 0)
        created = ScheduledTransaction(plan=plan, knowledge=write.knowledge)
        _apply(created, fields, write.knowledge)
    return Answer({"scheduled_transaction": _one(plan, created.id)}, status=201)


def update_scheduled(call: SandboxRequest, plan: Plan, scheduled_transaction_id: str) -> dict[str, Any]:
    body = Body.wrapped(call.body(), "scheduled_transaction")
    with plan_write(plan.id) as write:
        target = _live(plan, scheduled_transaction_id)
        fields = _read(body, PlanReferences(plan), write.today)
        if target.subtransactions.filter(deleted=False).exists():
            _check_split_unchanged(body, target, fields)
        _apply(target, fields, write.knowledge)
    return {"scheduled_transaction": _one(plan, scheduled_transaction_id)}


def delete_scheduled(call: SandboxRequest, plan: Plan, scheduled_transaction_id: str) -> dict[str, Any]:
    with plan_write(plan.id) as write:
        target = _live(plan, scheduled_transaction_id)
        ScheduledTransaction.objects.filter(pk=target.pk).update(deleted=True, knowledge=write.knowledge)
        target.subtransactions.update(deleted=True, knowledge=write.knowledge)
    rows = ScheduledTransaction.objects.filter(pk=target.pk)
    return {"scheduled_transaction": _details(plan, rows, with_deleted_lines=True)[0]}


def _read(body: Body, refs: PlanReferences, today: date) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    account_id = body.uuid("account_id", required=True, nullable=False)
    fields["account_id"] = refs.account(body, "account_id", account_id).id
    day = body.day("date", required=True)
    if day <= today or day > add_years_clamped(today, 5):
        raise body.fail("date must be a future date no more than 5 years into the future")
    fields["date"] = day
    for name, value in (
        ("amount", body.integer("amount")),
        ("memo", body.text("memo", max_length=500)),
        ("flag_color", body.choice("flag_color", FLAGS, nullable=True)),
        ("frequency", body.choice("frequency", FREQUENCIES)),
    ):
        if value is not MISSING:
            fields[name] = value
    if body.objects("subtransactions"):
        raise body.fail("split scheduled transactions cannot be created through the API")
    _payee(body, refs, fields)
    _category(body, refs, fields)
    return fields


def _payee(body: Body, refs: PlanReferences, fields: dict[str, Any]) -> None:
    payee_id, payee_name = body.uuid("payee_id"), body.text("payee_name", max_length=200)
    if payee_id not in (MISSING, None):
        fields["payee_id"] = payee_id
        fields["transfer_account_id"] = refs.payee(body, "payee_id", payee_id)
        if fields["transfer_account_id"] == fields["account_id"]:
            raise body.fail("payee_id is the transfer payee of the scheduled transaction's own account")
    elif payee_name not in (MISSING, None):
        fields["payee_name"] = payee_name
        fields["transfer_account_id"] = None
    elif payee_id is None:
        fields["payee_id"] = fields["transfer_account_id"] = None


def _category(body: Body, refs: PlanReferences, fields: dict[str, Any]) -> None:
    category_id = body.uuid("category_id")
    if category_id not in (MISSING, None):
        role = refs.category_role(body, "category_id", category_id)
        if role == Category.ROLE_CREDIT_CARD_PAYMENT:
            raise body.fail("category_id must not be a credit card payment category")
    if category_id is not MISSING:
        fields["category_id"] = category_id


def _check_split_unchanged(body: Body, target: ScheduledTransaction, fields: dict[str, Any]) -> None:
    if fields.get("amount", target.amount) != target.amount:
        raise body.fail("amount of a split scheduled transaction cannot be changed")
    if fields.get("category_id", target.category_id) != target.category_id:
        raise body.fail("category_id of a split scheduled transaction cannot be changed")


def _apply(target: ScheduledTransaction, fields: dict[str, Any], knowledge: int) -> None:
    payee_name = fields.pop("payee_name", None)
    day = fields.pop("date")
    if target.pk is None or target.date_first is None:
        target.date_first = day
    target.date_next = day
    if "flag_color" in fields:
        flag = fields.pop("flag_color")
        target.flag_color = flag or ("" if target.flag_color else None)
    for name, value in fields.items():
        setattr(target, name, value)
    if payee_name:
        target.payee = payee_named(target.plan, payee_name, knowledge)
    target.knowledge = knowledge
    target.save()


def _live(plan: Plan, scheduled_id: str) -> ScheduledTransaction:
    found = ScheduledTransaction.objects.filter(plan=plan, pk=scheduled_id, deleted=False).first()
    if found is None:
        raise not_found()
    return found


def _one(plan: Plan, scheduled_id: str) -> dict[str, Any]:
    found = _details(plan, ScheduledTransaction.objects.filter(plan=plan, pk=scheduled_id, deleted=False))
    if not found:
        raise not_found()
    return found[0]


def _details(plan: Plan, rows: QuerySet, *, with_deleted_lines: bool = False) -> list[dict[str, Any]]:
    found = list(rows.values_list(*SCHEDULED_KEYS))
    subs_of: dict[str, list[tuple]] = defaultdict(list)
    lines = ScheduledSubtransaction.objects.filter(scheduled_transaction_id__in=[r[0] for r in found])
    for sub in lines.values_list(*SCHEDULED_SUB_FIELDS):
        if with_deleted_lines or not sub[-1]:
            subs_of[sub[1]].append(sub)
    names, money = load_names(plan), MoneyFormat(plan.currency_format)
    return [scheduled_detail(row, subs_of[row[0]], names, money) for row in found]
