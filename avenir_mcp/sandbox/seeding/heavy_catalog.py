"""What a generated heavy plan is made of: accounts, ~60 categories in 10 groups, the kinds
of merchants each category's money goes to, and the monthly skeleton of a household.

Amounts are milliunits. `median` is a purchase's typical size; `share` how often the
category is used relative to the others.
"""

from __future__ import annotations

from dataclasses import dataclass

TRANSACTIONS_PER_MONTH = 300  # below this rate a plan gets fewer months, never more than
MAX_MONTHS = 36
PAYEE_COUNT = 300
ZIPF_EXPONENT = 1.5  # a few payees get most of the purchases, the rest a long tail
SPLIT_SHARE = 0.03
REFUND_SHARE = 0.02
PENDING_DAYS = 10  # purchases this recent may still be unapproved, uncategorised imports
PENDING_SHARE = 0.2


@dataclass(frozen=True)
class HeavyAccount:
    key: str
    name: str
    type: str
    balance: int


ACCOUNTS = (
    HeavyAccount("main", "Main Checking", "checking", 5_000_000),
    HeavyAccount("joint", "Joint Checking", "checking", 2_500_000),
    HeavyAccount("savings", "Savings", "savings", 20_000_000),
    HeavyAccount("rainy", "Emergency Savings", "savings", 10_000_000),
    HeavyAccount("visa", "Visa", "creditCard", -800_000),
    HeavyAccount("master", "Mastercard", "creditCard", -200_000),
    HeavyAccount("store", "Store Card", "creditCard", 0),
    HeavyAccount("cash", "Cash", "cash", 200_000),
    HeavyAccount("mortgage", "Mortgage", "mortgage", -180_000_000),
    HeavyAccount("brokerage", "Brokerage", "otherAsset", 40_000_000),
)
CARDS = ("visa", "master", "store")
PAYING_ACCOUNT = {"visa": "main", "master": "joint", "store": "main"}  # who pays each card's bill
MORTGAGE_RATE = 3_250  # thousandths of a percent a year


@dataclass(frozen=True)
class HeavyCategory:
    name: str
    median: int = 0  # 0: no everyday purchases (savings goals, bills handled by the skeleton)
    share: int = 0
    target: str | None = None  # need, refill, yearly, balance, by_date, funding, debt, snoozed
    brands: tuple[str, ...] = ()


def _spend(name: str, median: int, share: int, brands: str, target: str | None = None) -> HeavyCategory:
    return HeavyCategory(name, median, share, target, tuple(brands.split(",")))


GROUPS: tuple[tuple[str, tuple[HeavyCategory, ...]], ...] = (
    (
        "Housing",
        (
            HeavyCategory("Mortgage Payment", target="debt"),
            HeavyCategory("Property Tax", target="yearly"),
            HeavyCategory("Home Insurance", target="yearly"),
            _spend("Repairs", 85_000, 2, "LEROY MERLIN,CASTORAMA,BRICO DEPOT,MR BRICOLAGE", "funding"),
            _spend("Furniture", 140_000, 1, "IKEA,CONFORAMA,BUT,MAISONS DU MONDE"),
            _spend("Garden", 35_000, 1, "JARDILAND,TRUFFAUT,GAMM VERT"),
        ),
    ),
    (
        "Utilities",
        (
            HeavyCategory("Electricity", target="need"),
            HeavyCategory("Gas", target="need"),
            HeavyCategory("Water", target="need"),
            HeavyCategory("Internet", target="need"),
            HeavyCategory("Mobile Phones", target="need"),
            _spend("Post & Printing", 9_000, 1, "LA POSTE,COPY TOP,BUREAU VALLEE"),
        ),
    ),
    (
        "Food",
        (
            _spend(
                "Groceries",
                48_000,
                30,
                "CARREFOUR,LIDL,ALDI,MONOPRIX,FRANPRIX,AUCHAN,LECLERC,INTERMARCHE,PICARD,BIOCOOP",
                "refill",
            ),
            _spend(
                "Restaurants",
                42_000,
                6,
                "LE PETIT BISTROT,SUSHI SHOP,PIZZA DEL ARTE,BRASSERIE DU MARCHE,LA CREPERIE",
            ),
            _spend("Coffee", 4_500, 8, "STARBUCKS,COLUMBUS CAFE,CAFE DE LA GARE,PAUL"),
            _spend("Takeaway", 24_000, 5, "DELIVEROO,UBER EATS,JUST EAT"),
            _spend("Lunch at Work", 11_000, 8, "CANTINE SODEXO,PRET A MANGER,EXKI,BOULANGERIE ANGE"),
            _spend("Snacks", 3_500, 4, "RELAY,DISTRIBUTEUR SELECTA,CARREFOUR CITY"),
        ),
    ),
    (
        "Transport",
        (
            _spend("Fuel", 55_000, 5, "TOTALENERGIES,ESSO,SHELL,BP,AVIA"),
            _spend("Public Transport", 16_000, 4, "SNCF,RATP,TCL,NAVIGO"),
            _spend("Parking", 6_000, 3, "INDIGO,SAEMES,EFFIA,PAYBYPHONE"),
            HeavyCategory("Car Insurance", target="yearly"),
            _spend("Car Service", 180_000, 1, "NORAUTO,FEU VERT,SPEEDY,MIDAS", "funding"),
            _spend("Taxi", 21_000, 2, "UBER,BOLT,G7,HEETCH"),
        ),
    ),
    (
        "Health",
        (
            _spend("Doctor", 26_500, 2, "DR MARTIN,DR BERNARD,DOCTOLIB,CENTRE MEDICAL"),
            _spend("Pharmacy", 14_000, 4, "PHARMACIE DU CENTRE,PHARMACIE DE LA GARE,PHARMACIE LAFAYETTE"),
            _spend("Dentist", 70_000, 1, "CABINET DENTAIRE,DR PETIT DENTISTE"),
            _spend("Optician", 120_000, 1, "OPTIC 2000,KRYS,ALAIN AFFLELOU"),
            HeavyCategory("Health Insurance", target="need"),
            _spend("Gym", 30_000, 1, "BASIC FIT,FITNESS PARK,KEEP COOL", "need"),
        ),
    ),
    (
        "Family",
        (
            _spend("Childcare", 95_000, 2, "CRECHE LES LUTINS,NOUNOU PAJEMPLOI"),
            _spend("School", 38_000, 1, "COLLEGE JEAN MOULIN,CANTINE SCOLAIRE,FOURNITURES CLAIREFONTAINE"),
            _spend("Kids Activities", 32_000, 2, "CLUB DE FOOT,CONSERVATOIRE,PISCINE MUNICIPALE"),
            _spend("Clothing", 46_000, 4, "ZARA,H&M,UNIQLO,KIABI,DECATHLON,VERTBAUDET"),
            _spend("Pocket Money", 10_000, 1, "LYDIA,PAYPAL"),
            _spend("Pets", 29_000, 2, "MAXI ZOO,ANIMALIS,CLINIQUE VETERINAIRE"),
        ),
    ),
    (
        "Fun",
        (
            _spend("Hobbies", 27_000, 2, "CULTURA,ROUGIER ET PLE,LE GEANT DES BEAUX ARTS"),
            _spend("Games", 35_000, 2, "STEAM,NINTENDO,PLAYSTATION NETWORK,MICROMANIA"),
            _spend("Books", 16_000, 3, "FNAC,AMAZON EU SARL,GIBERT JOSEPH,LIBRAIRIE MOLLAT"),
            _spend("Concerts", 55_000, 1, "TICKETMASTER,FNAC SPECTACLES,SEETICKETS"),
            HeavyCategory("Streaming", target="need"),
            _spend("Sports", 24_000, 2, "DECATHLON,INTERSPORT,GO SPORT"),
        ),
    ),
    (
        "Travel",
        (
            _spend("Holidays", 320_000, 1, "AIRBNB,BOOKING.COM,PIERRE ET VACANCES", "by_date"),
            _spend("Weekend Trips", 120_000, 1, "SNCF CONNECT,OUIGO,BLABLACAR"),
            _spend("Hotels", 140_000, 1, "IBIS,NOVOTEL,BEST WESTERN"),
            _spend("Flights", 210_000, 1, "AIR FRANCE,EASYJET,TRANSAVIA,VOLOTEA"),
            _spend("Travel Insurance", 45_000, 1, "CHAPKA,AVI INTERNATIONAL"),
            _spend("Souvenirs", 18_000, 1, "BOUTIQUE DU MUSEE,RELAY"),
        ),
    ),
    (
        "Giving",
        (
            _spend("Gifts", 38_000, 2, "NATURE ET DECOUVERTES,FNAC,AMAZON EU SARL,GALERIES LAFAYETTE"),
            _spend("Charity", 25_000, 1, "CROIX ROUGE,RESTOS DU COEUR,MEDECINS SANS FRONTIERES"),
            _spend("Birthdays", 30_000, 1, "JOUE CLUB,KING JOUET,LA GRANDE RECRE"),
            _spend("Christmas", 60_000, 1, "GALERIES LAFAYETTE,PRINTEMPS,JOUE CLUB", "by_date"),
            _spend("Weddings", 90_000, 1, "LISTE DE MARIAGE,MILLEMERCIS"),
            _spend("Donations", 20_000, 1, "HELLOASSO,LEETCHI"),
        ),
    ),
    (
        "Savings Goals",
        (
            HeavyCategory("Emergency Fund", target="balance"),
            HeavyCategory("New Car", target="by_date"),
            HeavyCategory("Retirement", target="funding"),
            HeavyCategory("House Deposit", target="balance"),
            HeavyCategory("Education", target="funding"),
            HeavyCategory("Rainy Day", target="snoozed"),
        ),
    ),
)
PLACES = (
    "PARIS 11",
    "LYON 3",
    "NANTES",
    "MONTREUIL",
    "BORDEAUX",
    "LILLE",
    "ONLINE",
    "GARE DE LYON",
    "CENTRE",
)


@dataclass(frozen=True)
class SkeletonBill:
    """A monthly direct debit at a stable amount on a stable day (on the main account)."""

    category: str
    creditor: str
    day: int
    amount: int


BILLS = (
    SkeletonBill("Electricity", "EDF", 12, -84_000),
    SkeletonBill("Gas", "ENGIE", 12, -61_000),
    SkeletonBill("Water", "VEOLIA EAU", 20, -38_500),
    SkeletonBill("Internet", "ORANGE SA", 8, -39_990),
    SkeletonBill("Mobile Phones", "FREE MOBILE", 9, -39_980),
    SkeletonBill("Health Insurance", "HARMONIE MUTUELLE", 5, -96_400),
    SkeletonBill("Streaming", "NETFLIX.COM", 14, -17_990),
    SkeletonBill("Gym", "BASIC FIT FRANCE", 3, -29_990),
)
YEARLY_BILLS = (
    ("Property Tax", "DGFIP TAXE FONCIERE", 10, 15, -1_420_000),
    ("Home Insurance", "MAIF HABITATION", 3, 1, -396_000),
    ("Car Insurance", "MATMUT AUTO", 6, 1, -612_000),
)  # category, creditor, month, day, amount
