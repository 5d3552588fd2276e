"""One write to a plan: one knowledge bump, incremental figures, stamps on what changed.

    with plan_write(plan_id) as write:          # locks the plan row, knowledge = old + 1
        before = write.snapshot([txn.id])       # transactions as they were
        ...change rows, setting knowledge=write.knowledge on each...
        write.transactions_changed(before)      # apply -old, +new to the figures
        write.budget_changed(category_id, month)

On leaving the block (inside the same database transaction) the session applies the
balance and activity differences, stamps the accounts, month rows and categories whose
figures moved, refreshes age of money, and stores the plan's new `server_knowledge`.
Sessions are re-entrant per plan and thread: a ledger function called inside a request's
session joins it instead of bumping knowledge a second time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import date
from functools import partial

from django.db import transaction

from avenir_mcp.sandbox.budget_math.calendar import add_months, month_of
from avenir_mcp.sandbox.budget_math.effects import Effects, PlanRules, TransactionView, transaction_effects
from avenir_mcp.sandbox.ledger import figures as figures
from avenir_mcp.sandbox.ledger.budget import warm_budget
from avenir_mcp.sandbox.ledger.clock import utc_today
from avenir_mcp.sandbox.ledger.loading import load_rules, load_views
from avenir_mcp.sandbox.models import Plan

_active = threading.local()


class PlanWrite:
    """What one write request changed in one plan, and its knowledge number."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.knowledge = plan.server_knowledge + 1
        self.today = utc_today()
        self._rules: PlanRules | None = None
        self._effects = Effects()
        self._changed_months: set[date] = set()  # (category activity or budget) months
        self._changed_categories: set[tuple[str, date]] = set()
        self._flows_from: date | None = None  # earliest month whose cash flows moved

    @property
    def rules(self) -> PlanRules:
        if self._rules is None:
            self._rules = load_rules(self.plan)
        return self._rules

    def forget_rules(self) -> None:
        """Call after creating accounts or categories, so effects see them."""
        self._rules = None

    def snapshot(self, transaction_ids: Iterable[str]) -> dict[str, TransactionView]:
        """The given transactions as they are now (deleted ones are absent)."""
        return load_views(self.plan, transaction_ids)

    def transactions_changed(self, before: dict[str, TransactionView], ids: Iterable[str] = ()) -> None:
        """Apply the difference between `before` and the transactions' current state."""
        all_ids = set(before) | set(ids)
        after = self.snapshot(all_ids)
        for transaction_id in all_ids:
            old, new = before.get(transaction_id), after.get(transaction_id)
            self._effects.add(transaction_effects(old, self.rules), -1)
            self._effects.add(transaction_effects(new, self.rules))
            if old != new:
                self._flows_moved_in(old, new)

    def _flows_moved_in(self, *views: TransactionView | None) -> None:
        months = [month_of(view.date) for view in views if view is not None]
        self._flows_from = min([*months, *([self._flows_from] if self._flows_from else [])])

    def budget_changed(self, category_id: str, month: date) -> None:
        """A category's assigned amount changed in `month` (the caller saved the row)."""
        self._changed_months.add(month)
        self._changed_categories.add((category_id, month))

    def months_changed_from(self, month: date) -> None:
        """Something every month from `month` on shows changed (a category's name or goal)."""
        self._changed_months.add(month)

    def finish(self) -> None:
        effects = self._effects.nonzero()
        figures.apply_balances(self.plan, effects.balances, self.knowledge)
        figures.apply_activity(self.plan, effects.activity, self.knowledge)
        self._changed_months.update(month for _, month in effects.activity)
        self._changed_categories.update(effects.activity)
        self._extend_months()
        self._stamp_figures()
        self.plan.server_knowledge = self.knowledge
        self.plan.save(update_fields=["server_knowledge", "first_month", "last_month", "last_modified_on"])

    def _extend_months(self) -> None:
        """Keep the plan spanning every month with figures, through next month."""
        first = min([self.plan.first_month, *self._changed_months])
        last = max([add_months(month_of(self.today), 1), *self._changed_months])
        if first < self.plan.first_month or last > self.plan.last_month:
            figures.ensure_months(self.plan, first, last, self.knowledge)

    def _stamp_figures(self) -> None:
        """Months from the earliest change on (carry-over), and categories whose figures moved."""
        starts = set(self._changed_months)
        if self._flows_from is not None:
            starts.add(figures.refresh_age_of_money(self.plan, self.today, self._flows_from))
        starts.discard(None)
        if starts:
            figures.stamp_months_from(self.plan, min(starts), self.knowledge)
        current = month_of(self.today)
        moved = {category for category, month in self._changed_categories if month <= current}
        if moved:
            moved.add(self.rules.ready_to_assign_id)  # its balance is Ready to Assign
        figures.stamp_categories(self.plan, moved, self.knowledge)


@contextmanager
def plan_write(plan_id: str) -> Iterator[PlanWrite]:
    """Open (or join) the write session of a plan; see the module docstring."""
    sessions: dict[str, PlanWrite] = _active.__dict__.setdefault("sessions", {})
    if plan_id in sessions:
        yield sessions[plan_id]
        return
    with transaction.atomic():
        plan = Plan.objects.select_for_update().get(pk=plan_id)
        write = PlanWrite(plan)
        sessions[plan_id] = write
        try:
            yield write
            write.finish()
        finally:
            del sessions[plan_id]
        transaction.on_commit(partial(warm_budget, write.plan))
