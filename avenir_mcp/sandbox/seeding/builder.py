"""Collects a seeded plan's rows in memory, then writes them in a few bulk inserts.

Accounts (and what YNAB makes with them: transfer payee, card payment category, starting
balance) come from `sandbox.ledger`; everything else is built here as unsaved model rows
with ids from the plan's `IdSource`. `save()` inserts them (`bulk.insert_rows`) in one
database transaction and has the ledger derive balances, month activity and knowledge
once, at the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from django.db import transaction as db_transaction
from django.utils import timezone

from avenir_mcp.sandbox import ledger
from avenir_mcp.sandbox.models import (
    Account,
    BankTransaction,
    Category,
    CategoryGroup,
    MoneyMovement,
    MoneyMovementGroup,
    MonthCategory,
    Payee,
    Plan,
    ScheduledTransaction,
    Subtransaction,
    Transaction,
)
from avenir_mcp.sandbox.seeding.bulk import insert_rows
from avenir_mcp.sandbox.seeding.dates import next_occurrence
from avenir_mcp.sandbox.seeding.ids import IdSource
from avenir_mcp.sandbox.seeding.labels import ynab_import_id
from avenir_mcp.sandbox.seeding.targets import Target


@dataclass(frozen=True)
class Flag:
    color: str
    name: str | None = None


@dataclass(frozen=True)
class Move:
    """Assigned money moved between two categories during a month (see `PlanBuilder.move`)."""

    source: Category
    destination: Category
    month: date
    amount: int
    day: date
    note: str | None


ASSIGNED_AT = time(8, 0)  # a month's assignments are recorded at 08:00 UTC on its first day
MOVED_AT = time(19, 0)  # a move between categories, at 19:00 UTC on its day


@dataclass(frozen=True)
class Line:
    """One line of a split: amount (milliunits, signed), category, optional memo."""

    amount: int
    category: Category
    memo: str | None = None


class PlanBuilder:
    """Rows of one plan waiting to be written; see the module docstring."""

    def __init__(self, plan: Plan, ids: IdSource) -> None:
        self.plan = plan
        self.ids = ids
        self.groups: list[CategoryGroup] = []
        self.categories: list[Category] = []
        self.budgets: dict[tuple[str, date], MonthCategory] = {}
        self.transactions: list[Transaction] = []
        self.subtransactions: list[Subtransaction] = []
        self.scheduled: list[ScheduledTransaction] = []
        self.bank_rows: list[BankTransaction] = []
        self.moves: list[Move] = []
        self._new_payees: list[Payee] = []
        self._payees = {payee.name: payee for payee in Payee.objects.filter(plan=plan)}
        self._import_occurrences: Counter[tuple[str, int, date]] = Counter()
        roles = {c.role: c for c in Category.objects.filter(plan=plan).exclude(role="")}
        self.ready_to_assign = roles[Category.ROLE_READY_TO_ASSIGN]
        self.split_category = roles[Category.ROLE_SPLIT]

    # --- budget structure --------------------------------------------------------------

    def group(self, name: str, *, hidden: bool = False) -> CategoryGroup:
        group = CategoryGroup(
            id=self.ids.next(), plan=self.plan, name=name, hidden=hidden, sort_order=len(self.groups) + 10
        )
        self.groups.append(group)
        return group

    def category(
        self,
        group: CategoryGroup,
        name: str,
        *,
        target: Target | None = None,
        target_since: date | None = None,
        hidden: bool = False,
        note: str | None = None,
    ) -> Category:
        goal = target.model_fields(target_since or self.plan.first_month) if target else {}
        category = Category(
            id=self.ids.next(),
            plan=self.plan,
            group=group,
            name=name,
            hidden=hidden,
            note=note,
            sort_order=len(self.categories),
            **goal,
        )
        self.categories.append(category)
        return category

    def assign(self, category: Category, month: date, amount: int) -> None:
        """Add `amount` to what is assigned to `category` in `month` (first day)."""
        key = (category.id, month)
        if key not in self.budgets:
            self.budgets[key] = MonthCategory(plan=self.plan, category=category, month=month, budgeted=0)
        self.budgets[key].budgeted += amount

    def move(
        self,
        source: Category,
        destination: Category,
        month: date,
        amount: int,
        day: date,
        *,
        note: str | None = None,
    ) -> None:
        """Record that `amount` of `month`'s assigned money was moved from `source` to
        `destination` on `day`, as YNAB's money movements show it. What `assign` gave each
        category stays its month's total: the month's first assignments (recorded from Ready to
        Assign when saving) were that much more for `source` and less for `destination`."""
        self.moves.append(Move(source, destination, month, amount, day, note))

    def payee(self, name: str) -> Payee:
        """The plan's payee of that exact name, created on first use."""
        if name not in self._payees:
            payee = Payee(id=self.ids.next(), plan=self.plan, name=name)
            self._payees[name] = payee
            self._new_payees.append(payee)
        return self._payees[name]

    # --- transactions ------------------------------------------------------------------

    def transaction(
        self,
        account: Account,
        day: date,
        amount: int,
        payee: str | None,
        *,
        category: Category | None = None,
        memo: str | None = None,
        cleared: str = "cleared",
        approved: bool = True,
        flag: Flag | None = None,
        bank_label: str | None = None,
        imported: bool = False,
        debt_type: str | None = None,
    ) -> Transaction:
        """One transaction. `imported` gives it a YNAB import id and the bank's label
        (`bank_label`, default the payee name) as `import_payee_name(_original)`."""
        row = Transaction(
            id=self.ids.next(),
            plan=self.plan,
            account_id=account.id,
            date=day,
            amount=amount,
            memo=memo,
            cleared=cleared,
            approved=approved,
            payee_id=self.payee(payee).id if payee else None,
            category_id=category.id if category else None,
            flag_color=flag.color if flag else None,
            flag_name=flag.name if flag else None,
            debt_transaction_type=debt_type,
        )
        if imported:
            row.import_id = self._import_id(account, amount, day)
            row.import_payee_name = row.import_payee_name_original = bank_label or payee
        self.transactions.append(row)
        return row

    def transfer(
        self,
        source: Account,
        destination: Account,
        day: date,
        amount: int,
        *,
        category: Category | None = None,
        memo: str | None = None,
        cleared: str = "cleared",
        destination_debt_type: str | None = None,
    ) -> tuple[Transaction, Transaction]:
        """Move `amount` (> 0) from `source` to `destination`: both legs, linked to each other.

        `category` goes on the source leg only, as YNAB wants when money leaves the budget
        for a tracking account (None between two on-budget accounts).
        """
        out_leg = self._transfer_leg(source, destination, day, -amount, category, memo, cleared, None)
        in_leg = self._transfer_leg(
            destination, source, day, amount, None, memo, cleared, destination_debt_type
        )
        out_leg.transfer_transaction_id, in_leg.transfer_transaction_id = in_leg.id, out_leg.id
        return out_leg, in_leg

    def _transfer_leg(
        self,
        account: Account,
        other: Account,
        day: date,
        amount: int,
        category: Category | None,
        memo: str | None,
        cleared: str,
        debt_type: str | None,
    ) -> Transaction:
        row = Transaction(
            id=self.ids.next(),
            plan=self.plan,
            account_id=account.id,
            date=day,
            amount=amount,
            memo=memo,
            cleared=cleared,
            approved=True,
            payee_id=other.transfer_payee_id,
            category_id=category.id if category else None,
            transfer_account_id=other.id,
            debt_transaction_type=debt_type,
        )
        self.transactions.append(row)
        return row

    def split(self, account: Account, day: date, payee: str, lines: Sequence[Line], **fields) -> Transaction:
        """A split: the parent carries the plan's split category, the lines their own."""
        parent = self.transaction(
            account, day, sum(line.amount for line in lines), payee, category=self.split_category, **fields
        )
        for order, line in enumerate(lines):
            self.subtransactions.append(
                Subtransaction(
                    id=self.ids.next(),
                    plan=self.plan,
                    transaction=parent,
                    amount=line.amount,
                    memo=line.memo,
                    category_id=line.category.id,
                    sort_order=order,
                )
            )
        return parent

    def _import_id(self, account: Account, amount: int, day: date) -> str:
        self._import_occurrences[(account.id, amount, day)] += 1
        return ynab_import_id(amount, day, self._import_occurrences[(account.id, amount, day)])

    # --- the future and the bank ---------------------------------------------------------

    def schedule(
        self,
        account: Account,
        first: date,
        frequency: str,
        amount: int,
        payee: str | None,
        *,
        today: date,
        category: Category | None = None,
        transfer_to: Account | None = None,
        memo: str | None = None,
        flag: Flag | None = None,
    ) -> ScheduledTransaction:
        """A schedule first due on `first`; its next date is the first occurrence after today."""
        row = ScheduledTransaction(
            id=self.ids.next(),
            plan=self.plan,
            account=account,
            date_first=first,
            date_next=next_occurrence(first, frequency, today),
            frequency=frequency,
            amount=amount,
            memo=memo,
            flag_color=flag.color if flag else None,
            flag_name=flag.name if flag else None,
            category=category,
        )
        if transfer_to is not None:
            row.payee_id, row.transfer_account = transfer_to.transfer_payee_id, transfer_to
        else:
            row.payee = self.payee(payee) if payee else None
        self.scheduled.append(row)
        return row

    def waiting_at_bank(
        self, account: Account, day: date, amount: int, label: str, *, memo: str | None = None
    ) -> BankTransaction:
        """A transaction the bank holds for a linked account until the next import."""
        row = BankTransaction(
            plan=self.plan,
            account=account,
            date=day,
            amount=amount,
            payee_name=label,
            memo=memo,
            import_id=self._import_id(account, amount, day),
        )
        self.bank_rows.append(row)
        return row

    # --- writing -------------------------------------------------------------------------

    def save(self) -> Plan:
        """Insert every collected row, then derive balances, activity and knowledge once."""
        with db_transaction.atomic():
            for model, rows in self._rows_in_insert_order():
                insert_rows(model, rows)
            ledger.rebuild_derived(self.plan)
        self.plan.refresh_from_db()
        return self.plan

    def _rows_in_insert_order(self) -> Iterable[tuple[type, list]]:
        yield CategoryGroup, self.groups
        yield Category, self.categories
        yield MonthCategory, list(self.budgets.values())
        yield Payee, self._new_payees
        yield Transaction, self.transactions
        yield Subtransaction, self.subtransactions
        yield ScheduledTransaction, self.scheduled
        yield BankTransaction, self.bank_rows
        groups, movements = self._money_movements()
        yield MoneyMovementGroup, groups
        yield MoneyMovement, movements

    def _money_movements(self) -> tuple[list[MoneyMovementGroup], list[MoneyMovement]]:
        """The assignment history YNAB would show: each month's assignments from Ready to Assign
        as one group on its first day (each less what later moves brought it, more what they
        took), then each move as a group of its own. Ids are drawn last, so adding this history
        changed no other row's id."""
        moved: Counter[tuple[str, date]] = Counter()
        for move in self.moves:
            moved[(move.source.id, move.month)] -= move.amount
            moved[(move.destination.id, move.month)] += move.amount
        groups: dict[tuple[date, str], MoneyMovementGroup] = {}
        movements: list[MoneyMovement] = []
        now = timezone.now()
        for (category_id, month), row in sorted(
            self.budgets.items(), key=lambda item: (item[0][1], item[0][0])
        ):
            start = row.budgeted - moved[(category_id, month)]
            if not start:
                continue
            when = min(datetime.combine(month, ASSIGNED_AT, tzinfo=UTC), now)
            group = self._movement_group(groups, (month, ""), month, when, None)
            movements.append(
                self._movement(
                    group,
                    None if start > 0 else row.category,
                    row.category if start > 0 else None,
                    abs(start),
                )
            )
        for index, move in enumerate(self.moves):
            when = min(datetime.combine(move.day, MOVED_AT, tzinfo=UTC), now)
            group = self._movement_group(groups, (move.month, str(index)), move.month, when, move.note)
            movements.append(self._movement(group, move.source, move.destination, move.amount))
        return list(groups.values()), movements

    def _movement_group(
        self,
        groups: dict[tuple[date, str], MoneyMovementGroup],
        key: tuple[date, str],
        month: date,
        when: datetime,
        note: str | None,
    ) -> MoneyMovementGroup:
        if key not in groups:
            groups[key] = MoneyMovementGroup(
                id=self.ids.next(), plan=self.plan, group_created_at=when, month=month, note=note
            )
        return groups[key]

    def _movement(
        self, group: MoneyMovementGroup, source: Category | None, destination: Category | None, amount: int
    ) -> MoneyMovement:
        return MoneyMovement(
            id=self.ids.next(),
            plan=self.plan,
            month=group.month,
            moved_at=group.group_created_at,
            note=group.note,
            group=group,
            from_category=source,
            to_category=destination,
            amount=amount,
        )
