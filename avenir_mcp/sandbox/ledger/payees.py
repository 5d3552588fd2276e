"""Payees written as a side effect of transactions: resolving a `payee_name`."""

from __future__ import annotations

from avenir_mcp.sandbox.models import Payee, Plan


def payee_named(plan: Plan, name: str, knowledge: int) -> Payee:
    """The live, non-transfer payee with this name (exact, then ignoring case), or a new one."""
    payees = Payee.objects.filter(plan=plan, deleted=False, transfer_account=None)
    found = payees.filter(name=name).first() or payees.filter(name__iexact=name).first()
    if found is None:
        found = Payee.objects.create(plan=plan, name=name, knowledge=knowledge)
    return found
