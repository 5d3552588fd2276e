"""The demo's months gone by (and the current one so far): pay, bills, everyday spending,
money moved between accounts, a split, a cheque, a few flags.

Everyday spending stays within each category's budget (`SPENDING_SHARE`), so the only
overspending in the plan is the one `demo_inbox` makes on purpose in the current month.
"""

from __future__ import annotations

from datetime import date

from avenir_mcp.sandbox.budget_math.calendar import add_months
from avenir_mcp.sandbox.seeding import demo_catalog as catalog
from avenir_mcp.sandbox.seeding.builder import Flag, Line
from avenir_mcp.sandbox.seeding.dates import days_in_month
from avenir_mcp.sandbox.seeding.household import Household
from avenir_mcp.sandbox.seeding.labels import DEBIT_CARD, card_label, direct_debit_label, transfer_label

CASHED_CHEQUE = -35_000
"""The music school's cheque: still uncleared in the plan, but the bank has cashed it, so the
bank's balance (in checking's note) is the cleared balance plus this: reconcile_account's demo."""


def add_history(household: Household) -> None:
    """Every month's transactions, oldest first (card payments need the month before)."""
    _close_old_bank(household)
    for index, month in enumerate(household.months):
        _pay_and_bills(household, month)
        _moves(household, index, month)
        _one_offs(household, index, month)
        _everyday(household, month)


def _close_old_bank(household: Household) -> None:
    """The old account's balance moved to checking on day 3; the account is closed since."""
    day = household.day(household.months[0], 3)
    old, checking = household.accounts["old_bank"], household.accounts["checking"]
    balance = next(spec.balance for spec in catalog.ACCOUNTS if spec.key == "old_bank")
    household.build.transfer(
        old, checking, day, balance, memo="Closing the old account", cleared="reconciled"
    )


def _pay_and_bills(household: Household, month: date) -> None:
    """Salary on the 27th, direct debits and subscriptions on their days, electricity."""
    if day := household.day(month, catalog.SALARY_DAY):
        build = household.build
        label = f"{catalog.SALARY_LABEL} REF {month:%Y%m}{catalog.SALARY_DAY}01"
        build.transaction(
            household.accounts["checking"],
            day,
            catalog.SALARY,
            catalog.SALARY_PAYEE,
            category=build.ready_to_assign,
            imported=True,
            bank_label=label,
            cleared=household.cleared(day, imported=True),
        )
    for bill in catalog.BILLS:
        _bill(household, month, bill, invoice=household.rng.randint(100_000, 999_999))
    meter = -household.rng.randint(5_800, 7_400) * 10  # the amount follows the meter
    electricity = catalog.Bill("edf", "checking", "electricity", catalog.ELECTRICITY_DAY, meter, "EDF")
    _bill(household, month, electricity, invoice=household.rng.randint(100_000, 999_999))


def _bill(household: Household, month: date, bill: catalog.Bill, *, invoice: int) -> None:
    """One month's charge of `bill`, unless its day is still to come. A bill the household
    renamed keeps its mandate reference; the others show a new invoice number each month."""
    if not (day := household.day(month, bill.day)):
        return
    category = household.categories[bill.category]
    if bill.kind == "card":
        household.card_purchase(bill.account, bill.creditor, day, bill.amount, category=category)
        return
    if bill.payee:
        label = direct_debit_label(bill.creditor, reference=7_781_203)
    else:
        label = direct_debit_label(bill.creditor, invoice=invoice)
    household.build.transaction(
        household.accounts[bill.account],
        day,
        bill.amount,
        bill.payee or label,
        category=category,
        imported=True,
        bank_label=label,
        cleared=household.cleared(day, imported=True),
    )


def _moves(household: Household, index: int, month: date) -> None:
    """Savings, the card bill, the car loan (and its interest), the retirement fund."""
    build, accounts, categories = household.build, household.accounts, household.categories
    checking = accounts["checking"]
    if day := household.day(month, 2):
        build.transfer(
            checking,
            accounts["retirement"],
            day,
            150_000,
            category=categories["retirement"],
            cleared=household.cleared(day, imported=False),
        )
    if day := household.day(month, 6):
        build.transfer(
            checking,
            accounts["visa"],
            day,
            _card_bill(household, index, month),
            memo="Card statement",
            cleared=household.cleared(day, imported=False),
        )
    if day := household.day(month, 10):
        build.transfer(
            checking,
            accounts["car_loan"],
            day,
            catalog.CAR_LOAN_MINIMUM,
            category=categories["car_loan"],
            destination_debt_type="payment",
            cleared=household.cleared(day, imported=False),
        )
    if day := household.day(month, 28):
        build.transfer(
            checking,
            accounts["savings"],
            day,
            200_000,
            memo="Monthly saving",
            cleared=household.cleared(day, imported=False),
        )
        build.transaction(
            accounts["car_loan"], day, _loan_interest(household), "Loan interest", debt_type="interest"
        )


def _card_bill(household: Household, index: int, month: date) -> int:
    """Last month's card spending, plus a share of the opening debt in the first three months."""
    last_month = add_months(month, -1)
    visa = household.accounts["visa"]
    spent = -sum(
        row.amount
        for row in household.build.transactions
        if row.account_id == visa.id
        and row.transfer_account_id is None
        and row.date.replace(day=1) == last_month
    )
    return spent + (catalog.CARD_DEBT_TARGET if index < 3 else 0)


def _loan_interest(household: Household) -> int:
    """A month's interest on what the car loan owes now, to the cent (negative: more owed)."""
    loan = household.accounts["car_loan"]
    owed = -sum(row.amount for row in household.build.transactions if row.account_id == loan.id)
    owed += -next(spec.balance for spec in catalog.ACCOUNTS if spec.key == "car_loan")
    return -(owed * catalog.CAR_LOAN_RATE // (100_000 * 12) // 10 * 10)


def _one_offs(household: Household, index: int, month: date) -> None:
    """The events that make the history look lived in, each in a fixed month."""
    build, accounts, categories = household.build, household.accounts, household.categories
    if index == 1 and (day := household.day(month, days_in_month(month))):
        build.transaction(
            accounts["savings"],
            day,
            42_170,
            "VIR INTERETS LIVRET A",
            category=build.ready_to_assign,
            imported=True,
        )
        build.transaction(accounts["retirement"], day, 412_350, "Market value adjustment")
    if index in (1, 3) and (day := household.day(month, 18)):
        household.card_purchase(
            "checking",
            "PHARMACIE DU CENTRE",
            day,
            -31_200,
            category=categories["health"],
            flag=Flag("blue"),
            memo="Claim from insurer",
        )
        label = transfer_label("CPAM PARIS REMBT SOINS", reference=7_700_000 + index)
        build.transaction(
            accounts["checking"],
            household.day(month, 24) or day,
            21_840,
            label,
            category=categories["health"],
            imported=True,
            cleared=household.cleared(day, imported=True),
        )
    if index == 2:
        _insurance_and_garage(household, month)
    if index == 3 and (day := household.day(month, days_in_month(month))):
        build.transaction(accounts["retirement"], day, -180_200, "Market value adjustment")
    if index == 4:
        _split_and_cheque(household, month)


def _insurance_and_garage(household: Household, month: date) -> None:
    build, categories = household.build, household.categories
    day = household.day(month, 15)
    label = direct_debit_label("MAIF ASSURANCE AUTO", invoice=318_442)
    build.transaction(
        household.accounts["checking"],
        day,
        -480_000,
        label,
        category=categories["insurance"],
        imported=True,
        cleared=household.cleared(day, imported=True),
    )
    household.card_purchase(
        "checking",
        "NORAUTO",
        household.day(month, 19),
        -89_900,
        category=categories["car_upkeep"],
        flag=Flag("yellow"),
    )
    household.card_purchase(
        "visa",
        "AMAZON EU SARL",
        household.day(month, 8),
        -34_990,
        category=categories["household"],
        flag=Flag("red", "Return in progress"),
    )
    household.card_purchase(
        "checking",
        "NATURE ET DECOUVERTES",
        household.day(month, 22),
        -42_000,
        category=categories["gifts"],
        memo="Birthday present for Léa",
    )


def _split_and_cheque(household: Household, month: date) -> None:
    """Last month: one shop split over two categories, and a cheque the plan still shows uncleared."""
    build, categories = household.build, household.categories
    day = household.day(month, 12)
    label = card_label("CARREFOUR MARKET", day, DEBIT_CARD)
    build.split(
        household.accounts["checking"],
        day,
        label,
        [Line(-62_300, categories["groceries"]), Line(-24_100, categories["household"], "Bin bags, bulbs")],
        imported=True,
        flag=Flag("purple"),
        cleared=household.cleared(day, imported=True),
    )
    build.transaction(
        household.accounts["checking"],
        household.day(month, 20),
        CASHED_CHEQUE,
        "Music school",
        category=categories["hobbies"],
        memo="Cheque 8012345",
        cleared="uncleared",
    )


def _everyday(household: Household, month: date) -> None:
    """Groceries, dining, fuel...: random purchases kept under each budget's share.

    The current month's dining is left to `demo_inbox`, which overspends it on purpose.
    """
    rng = household.rng
    for spending in catalog.EVERYDAY:
        category = household.categories[spending.category]
        room = int(household.assigned(category, month) * catalog.SPENDING_SHARE) + household.spent(
            category, month
        )
        for _ in range(rng.randint(*spending.per_month)):
            merchant = rng.choice(spending.merchants)
            amount = -rng.randint(merchant.low // 10, merchant.high // 10) * 10
            day = household.day(month, rng.randint(1, days_in_month(month)))
            if day is None or -amount > room:
                continue
            if spending.category == "dining" and month == household.current_month:
                continue
            room += household.card_purchase(
                merchant.account, merchant.name, day, amount, category=category
            ).amount
