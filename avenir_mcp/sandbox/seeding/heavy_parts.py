"""Filling a heavy plan: the monthly skeleton (pay, bills, transfers, card bills), then
purchases up to the exact count asked, then the amounts that depend on them, budgets and
schedules."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import date

from avenir_mcp.sandbox.budget_math.calendar import add_months, months_between
from avenir_mcp.sandbox.models import Account, Transaction
from avenir_mcp.sandbox.seeding import heavy_catalog as catalog
from avenir_mcp.sandbox.seeding.builder import Flag, Line, PlanBuilder
from avenir_mcp.sandbox.seeding.dates import days_in_month, on_day
from avenir_mcp.sandbox.seeding.heavy_structure import (
    MORTGAGE_PAYMENT,
    HeavyPayee,
    add_schedules,
    assign_budgets,
    make_categories,
    make_payees,
)
from avenir_mcp.sandbox.seeding.labels import direct_debit_label, transfer_label

MEMOS = (
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "with the kids",
    "reimbursable",
    "birthday",
    "shared with Sam",
    "return window 30 days",
)
FLAGS = ("red", "orange", "yellow", "green", "blue", "purple")


class HeavyPlan:
    """One heavy plan being generated; `fill(room)` adds exactly `room` transactions."""

    def __init__(
        self, build: PlanBuilder, accounts: dict[str, Account], first: date, today: date, rng: random.Random
    ) -> None:
        self.build, self.accounts, self.today, self.rng = build, accounts, today, rng
        self.months = list(months_between(first, today))
        self.reconciled_before = add_months(today.replace(day=1), -1)
        self.categories = make_categories(build, today)
        self.payees, self.weights = make_payees(rng, self.categories)
        self._salaries: dict[date, list[Transaction]] = defaultdict(list)
        self._card_bills: list[tuple[str, date, tuple[Transaction, Transaction]]] = []

    def fill(self, room: int) -> None:
        start = len(self.build.transactions)
        for month in self.months:
            self._skeleton(month)
        if len(self.build.transactions) - start > room:  # too small a plan for the skeleton
            del self.build.transactions[start:]
            self._salaries.clear()
            self._card_bills.clear()
        self._purchases(room - (len(self.build.transactions) - start))
        self._settle_card_bills()
        self._settle_salaries()
        assign_budgets(self.build, self.categories, self.months, self.rng)
        add_schedules(self.build, self.accounts, self.categories, self.months[0], self.today)

    # --- the skeleton ------------------------------------------------------------------

    def _day(self, month: date, day: int) -> date | None:
        result = on_day(month, day)
        return result if result <= self.today else None

    def _cleared(self, day: date) -> str:
        if day < self.reconciled_before:
            return "reconciled"
        return "uncleared" if (self.today - day).days < 3 else "cleared"

    def _skeleton(self, month: date) -> None:
        build, accounts, categories = self.build, self.accounts, self.categories
        if day := self._day(month, 1):
            build.transfer(
                accounts["main"],
                accounts["mortgage"],
                day,
                MORTGAGE_PAYMENT,
                category=categories["Mortgage Payment"],
                destination_debt_type="payment",
                cleared=self._cleared(day),
            )
            build.transfer(
                accounts["main"],
                accounts["joint"],
                day,
                1_500_000,
                memo="Household account",
                cleared=self._cleared(day),
            )
        for bill in catalog.BILLS:
            if day := self._day(month, bill.day):
                label = direct_debit_label(bill.creditor, invoice=self.rng.randint(100_000, 999_999))
                build.transaction(
                    accounts["main"],
                    day,
                    bill.amount,
                    label,
                    category=categories[bill.category],
                    imported=True,
                    cleared=self._cleared(day),
                )
        for name, creditor, bill_month, bill_day, amount in catalog.YEARLY_BILLS:
            if month.month == bill_month and (day := self._day(month, bill_day)):
                build.transaction(
                    accounts["main"],
                    day,
                    amount,
                    direct_debit_label(creditor, reference=4_410_233),
                    category=categories[name],
                    imported=True,
                    cleared=self._cleared(day),
                )
        self._money_moves(month)

    def _money_moves(self, month: date) -> None:
        build, accounts = self.build, self.accounts
        for key, day_of_month in (("main", 25), ("joint", 28)):
            if day := self._day(month, day_of_month):
                label = transfer_label("ACME SAS SALAIRE" if key == "main" else "GLOBEX SARL PAIE")
                row = build.transaction(
                    accounts[key],
                    day,
                    0,
                    label,
                    category=build.ready_to_assign,
                    imported=True,
                    cleared=self._cleared(day),
                )
                self._salaries[month].append(row)
        for day_of_month in (7, 21):
            if day := self._day(month, day_of_month):
                build.transfer(
                    accounts["main"], accounts["cash"], day, 100_000, memo="ATM", cleared=self._cleared(day)
                )
        if day := self._day(month, 26):
            build.transfer(accounts["main"], accounts["savings"], day, 400_000, cleared=self._cleared(day))
        if day := self._day(month, 27):
            build.transfer(
                accounts["main"],
                accounts["brokerage"],
                day,
                300_000,
                category=self.categories["Retirement"],
                cleared=self._cleared(day),
            )
        if day := self._day(month, 28):
            build.transaction(
                accounts["mortgage"],
                day,
                self._mortgage_interest(),
                "Mortgage interest",
                debt_type="interest",
                cleared="cleared",
            )
        for card in catalog.CARDS:
            if day := self._day(month, 5 if card != "store" else 15):
                payer = accounts[catalog.PAYING_ACCOUNT[card]]
                legs = build.transfer(
                    payer, accounts[card], day, 0, memo="Card statement", cleared=self._cleared(day)
                )
                self._card_bills.append((card, month, legs))

    def _mortgage_interest(self) -> int:
        mortgage = self.accounts["mortgage"]
        owed = -sum(row.amount for row in self.build.transactions if row.account_id == mortgage.id)
        owed += -next(spec.balance for spec in catalog.ACCOUNTS if spec.key == "mortgage")
        return -(owed * catalog.MORTGAGE_RATE // (100_000 * 12) // 10 * 10)

    # --- purchases ---------------------------------------------------------------------

    def _purchases(self, count: int) -> None:
        """`count` purchases spread over the months by how many of their days have passed."""
        days = [self._days_open(month) for month in self.months]
        shares = [count * open_days // sum(days) for open_days in days]
        shares[-1] += count - sum(shares)
        for month, open_days, share in zip(self.months, days, shares, strict=True):
            payees = self.rng.choices(self.payees, cum_weights=self.weights, k=share)
            for payee in payees:
                self._purchase(payee, on_day(month, self.rng.randint(1, open_days)))

    def _days_open(self, month: date) -> int:
        if (month.year, month.month) == (self.today.year, self.today.month):
            return self.today.day
        return days_in_month(month)

    def _purchase(self, payee: HeavyPayee, day: date) -> None:
        rng, account = self.rng, self.accounts[payee.account]
        amount = -max(10, round(payee.median * rng.lognormvariate(0, 0.45) / 10) * 10)
        fields = {
            "memo": rng.choice(MEMOS) or None,
            "cleared": self._cleared(day),
            "imported": payee.account != "cash",
        }
        if rng.random() < 0.01:
            fields["flag"] = Flag(rng.choice(FLAGS))
        if (self.today - day).days < catalog.PENDING_DAYS and rng.random() < catalog.PENDING_SHARE:
            self.build.transaction(account, day, amount, payee.name, approved=False, **fields)
        elif rng.random() < catalog.SPLIT_SHARE and amount <= -2_000:
            other = rng.choice(self.payees).category
            first = amount * rng.randint(30, 70) // 100 // 10 * 10
            self.build.split(
                account, day, payee.name, [Line(first, payee.category), Line(amount - first, other)], **fields
            )
        else:
            refund = rng.random() < catalog.REFUND_SHARE
            self.build.transaction(
                account, day, -amount if refund else amount, payee.name, category=payee.category, **fields
            )

    # --- amounts that depend on the purchases --------------------------------------------

    def _settle_card_bills(self) -> None:
        """Each card bill pays the card's spending of the month before (its opening debt first)."""
        spent: dict[tuple[str, date], int] = defaultdict(int)
        by_account = {account.id: key for key, account in self.accounts.items()}
        for row in self.build.transactions:
            if row.transfer_account_id is None:
                spent[(by_account[row.account_id], row.date.replace(day=1))] -= row.amount
        opening = {spec.key: -spec.balance for spec in catalog.ACCOUNTS}
        for card, month, (out_leg, in_leg) in self._card_bills:
            owed = spent[(card, add_months(month, -1))] if month != self.months[0] else opening[card]
            amount = max(owed, 10_000)
            out_leg.amount, in_leg.amount = -amount, amount

    def _settle_salaries(self) -> None:
        """Each pay covers what its account paid out that month, with about 8 % to spare."""
        net: dict[tuple[str, date], int] = defaultdict(int)
        for row in self.build.transactions:
            net[(row.account_id, row.date.replace(day=1))] += row.amount
        for month, rows in self._salaries.items():
            for row in rows:
                paid_out = -net[(row.account_id, month)]
                row.amount = max(paid_out * 108 // 100, 1_000_000) // 10_000 * 10_000
