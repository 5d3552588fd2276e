"""The demo household, as data: accounts, categories with targets and monthly budgets,
bills, and the merchants where everyday money goes. `demo.py` turns it into a plan.

Amounts are milliunits (EUR). Keys (`"checking"`, `"groceries"`...) name things inside
the seeding code only; what users see is the `name`.
"""

from __future__ import annotations

from dataclasses import dataclass

DEMO_PLAN_ID = "de000000-0000-4000-8000-000000000001"
DEMO_PLAN_NAME = "Demo household"
MONTHS_OF_HISTORY = 6  # five full months and the current one, so far

CURRENCY_FORMAT = {
    "iso_code": "EUR",
    "example_format": "123 456,78",
    "decimal_digits": 2,
    "decimal_separator": ",",
    "symbol_first": False,
    "group_separator": " ",
    "currency_symbol": "€",
    "display_symbol": True,
}
DATE_FORMAT = {"format": "DD/MM/YYYY"}


@dataclass(frozen=True)
class AccountSpec:
    key: str
    name: str
    type: str
    balance: int  # the starting balance, on the plan's first day
    on_budget: bool = True
    linked: bool = False  # direct import from the bank
    link_broken: bool = False  # linked, but the last import failed
    note: str | None = None


ACCOUNTS = (
    AccountSpec(
        "checking", "Checking", "checking", 2_480_000, linked=True, note="Joint account, Banque Exemple"
    ),
    AccountSpec("savings", "Savings", "savings", 8_000_000, linked=True, link_broken=True),
    AccountSpec(
        "visa",
        "Visa Card",
        "creditCard",
        -300_000,
        linked=True,
        note="Statement paid from Checking around the 6th",
    ),
    AccountSpec("car_loan", "Car Loan", "autoLoan", -9_800_000, on_budget=False),
    AccountSpec("retirement", "Retirement Fund", "otherAsset", 15_000_000, on_budget=False),
    AccountSpec("old_bank", "Old Bank Account", "checking", 150_000, note="Closed after moving banks"),
)
CAR_LOAN_RATE = 3_900  # thousandths of a percent: 3.9 % a year
CAR_LOAN_MINIMUM = 250_000
CARD_DEBT_TARGET = 100_000  # paid on the card's opening debt in the first three months


@dataclass(frozen=True)
class CategorySpec:
    """A category and what the household assigns to it each month (`monthly`)."""

    key: str
    name: str
    monthly: int
    target: str | None = None  # which target `demo.py` gives it (see `_targets` there)
    first_month_extra: int = 0  # assigned on top in the first month (building a buffer)
    hidden: bool = False
    note: str | None = None  # the household's note on it, as kept in YNAB (update_category's demo)


GROUPS: tuple[tuple[str, tuple[CategorySpec, ...]], ...] = (
    (
        "Bills",
        (
            CategorySpec("rent", "Rent", 950_000, "need_rent"),
            CategorySpec("electricity", "Electricity", 75_000, "refill_electricity"),
            CategorySpec("phone", "Phone & Internet", 55_000, "need_phone"),
            CategorySpec("insurance", "Car Insurance", 40_000, "yearly_insurance", first_month_extra=360_000),
            CategorySpec("car_loan", "Car Loan Payment", 250_000, "debt_car_loan"),
            CategorySpec("transport", "Transport Pass", 86_400, "need_transport"),
        ),
    ),
    (
        "Everyday",
        (
            CategorySpec(
                "groceries",
                "Groceries",
                450_000,
                "refill_groceries",
                note="Market on Saturdays; cleaning products go to Household",
            ),
            CategorySpec("dining", "Dining Out", 120_000, "refill_dining"),
            CategorySpec("fuel", "Fuel", 90_000),
            CategorySpec("health", "Health", 40_000),
            CategorySpec("household", "Household", 60_000),
        ),
    ),
    (
        "Subscriptions",
        (
            CategorySpec("streaming", "Streaming", 25_480, "need_streaming"),
            CategorySpec("gym", "Gym", 29_900, "need_gym"),
            CategorySpec("old_gym", "Old Gym Membership", 0, hidden=True),
        ),
    ),
    (
        "Goals",
        (
            CategorySpec(
                "emergency", "Emergency Fund", 200_000, "balance_emergency", first_month_extra=5_000_000
            ),
            CategorySpec("holidays", "Holidays", 150_000, "by_date_holidays", first_month_extra=600_000),
            CategorySpec("laptop", "New Laptop", 0, "snoozed_laptop"),
            CategorySpec("car_upkeep", "Car Maintenance", 50_000, "funding_car_upkeep"),
            CategorySpec("retirement", "Retirement", 150_000, "funding_retirement"),
            CategorySpec("gifts", "Gifts", 30_000),
        ),
    ),
    (
        "Fun",
        (
            CategorySpec("hobbies", "Hobbies", 40_000),
            CategorySpec("books", "Books & Games", 30_000),
            CategorySpec("outings", "Outings", 50_000),
        ),
    ),
)


@dataclass(frozen=True)
class Bill:
    """A charge at a stable amount on a stable day each month (a recurring charge)."""

    key: str
    account: str
    category: str
    day: int
    amount: int
    creditor: str  # as the bank prints it
    kind: str = "debit"  # "debit" (PRLV SEPA with an invoice number) or "card"
    payee: str | None = None  # the name the household gave it; None keeps the bank's label


BILLS = (
    Bill("gym", "checking", "gym", 3, -29_900, "BASIC FIT FRANCE"),
    Bill("navigo", "checking", "transport", 4, -86_400, "COMUTITRES NAVIGO"),
    Bill("rent", "checking", "rent", 5, -950_000, "FONCIA GESTION LOYER", payee="Foncia (rent)"),
    Bill("mobile", "checking", "phone", 9, -19_990, "FREE MOBILE"),
    Bill("netflix", "visa", "streaming", 14, -13_490, "NETFLIX.COM", kind="card"),
    Bill("internet", "checking", "phone", 16, -34_990, "BOUYGUES TELECOM"),
    Bill("spotify", "visa", "streaming", 21, -11_990, "SPOTIFY", kind="card"),
)
ELECTRICITY_DAY = 12  # EDF's direct debit: stable day, amount follows the meter
SALARY = 3_150_000
SALARY_DAY = 27
SALARY_PAYEE = "ACME SAS"
SALARY_LABEL = "VIR SEPA ACME SAS SALAIRE"


@dataclass(frozen=True)
class ScheduleSpec:
    """A schedule first due on `day` of the plan's month number `month` (0 = first month).

    `category` is a category key, or "ready_to_assign"; `transfer_to` an account key.
    """

    account: str
    month: int
    day: int
    frequency: str
    amount: int
    payee: str | None = None
    category: str | None = None
    transfer_to: str | None = None
    memo: str | None = None
    flag: tuple[str, str | None] | None = None  # colour, custom name


SCHEDULES = (
    ScheduleSpec("checking", 0, 5, "monthly", -950_000, "Foncia (rent)", "rent"),
    ScheduleSpec("checking", 0, SALARY_DAY, "monthly", SALARY, SALARY_PAYEE, "ready_to_assign"),
    ScheduleSpec("checking", 0, 28, "monthly", -200_000, transfer_to="savings", memo="Monthly saving"),
    ScheduleSpec(
        "checking", 0, 10, "monthly", -CAR_LOAN_MINIMUM, category="car_loan", transfer_to="car_loan"
    ),
    ScheduleSpec("checking", 2, 15, "yearly", -480_000, "MAIF", "insurance", memo="Car insurance, yearly"),
    ScheduleSpec("visa", 0, 14, "monthly", -13_490, "Netflix", "streaming"),
    ScheduleSpec(
        "visa",
        7,
        1,
        "yearly",
        -69_000,
        "Amazon Prime",
        "household",
        memo="Renews yearly",
        flag=("orange", "Cancel?"),
    ),
    # The internet box's bill (BOUYGUES TELECOM on the 16th): a bill the person may ask to reschedule.
    ScheduleSpec("checking", 0, 16, "monthly", -34_990, "Bouygues Telecom", "phone", memo="Internet box"),
)
# Money moved between categories in the last full month (YNAB records it as a money movement):
# from, to, amount, day, note.
MONEY_MOVED = ("outings", "groceries", 40_000, 20, "Family lunch at home instead of the restaurant")


@dataclass(frozen=True)
class Merchant:
    """Where everyday spending happens: card label, account, amount range in milliunits."""

    name: str
    account: str
    low: int
    high: int


@dataclass(frozen=True)
class Spending:
    """A category's everyday spending: how many purchases a month, at which merchants."""

    category: str
    per_month: tuple[int, int]
    merchants: tuple[Merchant, ...]


EVERYDAY = (
    Spending(
        "groceries",
        (6, 8),
        (
            Merchant("CARREFOUR MARKET", "checking", 18_000, 72_000),
            Merchant("LIDL", "checking", 12_000, 55_000),
            Merchant("MONOPRIX", "checking", 8_000, 40_000),
            Merchant("BIOCOOP", "checking", 15_000, 45_000),
        ),
    ),
    Spending(
        "dining",
        (3, 4),
        (
            Merchant("LE PETIT BISTROT", "checking", 22_000, 38_000),
            Merchant("SUSHI SHOP", "visa", 18_000, 32_000),
            Merchant("BOULANGERIE PAUL", "checking", 4_000, 9_000),
        ),
    ),
    Spending("fuel", (1, 2), (Merchant("TOTALENERGIES", "checking", 35_000, 42_000),)),
    Spending("health", (0, 1), (Merchant("PHARMACIE DU CENTRE", "checking", 6_000, 24_000),)),
    Spending(
        "household",
        (1, 2),
        (Merchant("AMAZON EU SARL", "visa", 9_000, 24_000), Merchant("IKEA", "checking", 8_000, 20_000)),
    ),
    Spending(
        "books",
        (0, 2),
        (Merchant("FNAC", "checking", 8_000, 14_000), Merchant("AMAZON EU SARL", "visa", 6_000, 11_000)),
    ),
    Spending("hobbies", (0, 1), (Merchant("CULTURA", "checking", 10_000, 30_000),)),
    Spending("outings", (1, 2), (Merchant("CINEMA PATHE", "checking", 11_000, 24_000),)),
)
SPENDING_SHARE = 0.85  # at most this share of a month's budget goes on everyday spending
