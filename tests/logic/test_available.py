"""What a change does to the categories' available amounts, and how the preview says it (pure)."""

from __future__ import annotations

from datetime import date

from avenir_mcp.confirmations.preview import Preview, render
from avenir_mcp.tools.logic.available import (
    ActivityMove,
    available_shifts,
    overspent_note,
    shift_line,
    transaction_moves,
)
from avenir_mcp.tools.writes.consequences import available_consequences
from tests.logic.plan_rows import account, category, currency, group, line, snapshot, transaction

AUG, SEPT = date(2026, 8, 1), date(2026, 9, 1)
GROUPS = [group("internal", "Internal Master Category", internal=True), group("everyday", "Everyday")]
INTERNAL = [
    category("rta", "internal", "Inflow: Ready to Assign", internal=True),
    category("uncat", "internal", "Uncategorized", internal=True),
]


def figures(id: str, name: str, available: int) -> dict:
    """A category's row in a month, with `available` (YNAB's `balance`)."""
    return category(id, "everyday", name, balance=available)


def month_row(first_day: date, *rows: dict) -> dict:
    return {
        "month": first_day.isoformat(), "note": None, "income": 0, "budgeted": 0, "activity": 0,
        "to_be_budgeted": 0, "age_of_money": None, "deleted": False, "categories": list(rows),
    }  # fmt: skip


def household(**extra):
    """Groceries 100.00 and Dining 30.00 available in September, Groceries 5.00 in August; Rent has
    no figures in August; Ready to Assign and Uncategorized have figures too."""
    rows = dict(
        accounts=[account("chk")],
        category_groups=GROUPS,
        categories=[
            *INTERNAL,
            category("groceries", "everyday", "Groceries"),
            category("dining", "everyday", "Dining Out"),
            category("rent", "everyday", "Rent"),
        ],
        months=[
            month_row(
                SEPT,
                figures("groceries", "Groceries", 100_000),
                figures("dining", "Dining Out", 30_000),
                figures("rent", "Rent", 0),
                category("rta", "internal", "Inflow: Ready to Assign", internal=True, balance=500_000),
                category("uncat", "internal", "Uncategorized", internal=True, balance=-86_430),
            ),
            month_row(AUG, figures("groceries", "Groceries", 5_000), figures("dining", "Dining Out", 0)),
        ],
    )
    return snapshot(**{**rows, **extra})


def shown(shifts) -> list[tuple[str, date, int, int]]:
    return [(s.category.id, s.month, s.before, s.after) for s in shifts]


def test_moves_are_summed_per_category_and_month_from_ynabs_available_that_month():
    plan = household()
    moves = [
        ActivityMove("groceries", date(2026, 9, 12), -86_430),
        ActivityMove("groceries", date(2026, 9, 30), -4_200),
        ActivityMove("groceries", date(2026, 8, 31), -1_000),
        ActivityMove("dining", date(2026, 9, 2), 12_340),
    ]

    assert shown(available_shifts(plan, moves)) == [
        ("groceries", SEPT, 100_000, 9_370),
        ("dining", SEPT, 30_000, 42_340),
        ("groceries", AUG, 5_000, 4_000),
    ]


def test_what_moves_no_categorys_available_is_left_out():
    plan = household()
    moves = [
        ActivityMove(None, date(2026, 9, 1), -1_000),  # no category
        ActivityMove("rta", date(2026, 9, 1), 1_234_560),  # Ready to Assign: not a category's available
        ActivityMove("uncat", date(2026, 9, 1), 86_430),  # Uncategorized: "no category" to the person
        ActivityMove("gone", date(2026, 9, 1), -1_000),  # deleted since
        ActivityMove("rent", date(2026, 8, 1), -1_000),  # no figures for it that month
        ActivityMove("dining", date(2026, 9, 3), -5_000),  # cancels out ...
        ActivityMove("dining", date(2026, 9, 4), 5_000),  # ... with this
    ]

    assert available_shifts(plan, moves) == ()


def test_the_categories_left_overspent_come_first_the_most_overspent_first_then_the_largest_moves():
    plan = household()
    moves = [
        ActivityMove("rent", date(2026, 9, 1), -1_000),  # 0.00 → -1.00
        ActivityMove("dining", date(2026, 9, 1), -40_000),  # 30.00 → -10.00
        ActivityMove("groceries", date(2026, 9, 1), -3_000),  # 100.00 → 97.00
        ActivityMove("groceries", date(2026, 8, 1), 7_000),  # 5.00 → 12.00
    ]

    assert shown(available_shifts(plan, moves)) == [
        ("dining", SEPT, 30_000, -10_000),
        ("rent", SEPT, 0, -1_000),
        ("groceries", AUG, 5_000, 12_000),
        ("groceries", SEPT, 100_000, 97_000),
    ]


def test_equal_moves_are_ordered_by_name_then_month():
    plan = household()
    moves = [
        ActivityMove("groceries", date(2026, 9, 1), 1_000),
        ActivityMove("groceries", date(2026, 8, 1), 1_000),
        ActivityMove("dining", date(2026, 9, 1), -1_000),
    ]

    assert [(s.category.name, s.month) for s in available_shifts(plan, moves)] == [
        ("Dining Out", SEPT),
        ("Groceries", AUG),
        ("Groceries", SEPT),
    ]


def test_a_split_moves_each_of_its_lines_categories_and_a_transaction_its_own():
    plan = household(
        transactions=[
            transaction("t-split", "chk", "2026-09-15", -30_000, category_id="splitcat"),
            transaction("t-cafe", "chk", "2026-09-14", -12_340, category_id="dining"),
        ],
        subtransactions=[
            line("l1", "t-split", -20_000, category_id="groceries"),
            line("l2", "t-split", -10_000, category_id="dining"),
        ],
    )

    split = transaction_moves(plan, plan.transactions["t-split"], sign=-1)
    cafe = transaction_moves(plan, plan.transactions["t-cafe"], sign=1)

    day = date(2026, 9, 15)
    assert split == [ActivityMove("groceries", day, 20_000), ActivityMove("dining", day, 10_000)]
    assert cafe == [ActivityMove("dining", date(2026, 9, 14), -12_340)]


def test_each_line_reads_in_the_plans_format_and_the_note_names_what_is_left_overspent():
    plan = household()
    (dining,) = available_shifts(plan, [ActivityMove("dining", date(2026, 9, 1), -42_500)])
    (groceries,) = available_shifts(plan, [ActivityMove("groceries", date(2026, 9, 1), -1)])

    assert shift_line(currency(2, ","), dining) == "Dining Out for 2026-09-01: 30,00 → -12,50"
    assert shift_line(currency(0, "."), dining) == "Dining Out for 2026-09-01: 30 → -12.5"
    assert overspent_note(None, [dining]) == "This leaves Dining Out overspent by 12.50 for 2026-09-01."
    assert overspent_note(None, [groceries]) is None


def test_several_overspent_are_named_in_one_note_at_most_ten_then_how_many_more():
    categories = [category(f"c{n:02}", "everyday", f"Cat {n:02}") for n in range(12)]
    september = month_row(SEPT, *(figures(c["id"], c["name"], 0) for c in categories))
    plan = snapshot(category_groups=GROUPS, categories=[*INTERNAL, *categories], months=[september])
    two = available_shifts(plan, [ActivityMove(c["id"], SEPT, -1_000) for c in categories[:2]])
    twelve = available_shifts(
        plan, [ActivityMove(c["id"], SEPT, -1_000 * (n + 1)) for n, c in enumerate(categories)]
    )

    assert overspent_note(None, two) == (
        "This leaves 2 categories overspent: Cat 00 by 1.00 for 2026-09-01; Cat 01 by 1.00 for 2026-09-01."
    )
    named = "; ".join(f"Cat {n:02} by {n + 1}.00 for 2026-09-01" for n in range(11, 1, -1))
    assert overspent_note(None, twelve) == f"This leaves 12 categories overspent: {named}; and 2 more."


def test_two_hundred_transactions_over_thirty_categories_read_in_a_bounded_preview():
    """30 categories with 10.00 available each. 195 transactions of 1.00 go round them (Cat 00-14
    get 7, Cat 15-29 get 6), and 5 of 20.00 go to Cat 25-29, which end at -16.00."""
    categories = [category(f"c{n:02}", "everyday", f"Cat {n:02}") for n in range(30)]
    september = month_row(SEPT, *(figures(c["id"], c["name"], 10_000) for c in categories))
    plan = snapshot(category_groups=GROUPS, categories=[*INTERNAL, *categories], months=[september])
    moves = [ActivityMove(f"c{n % 30:02}", date(2026, 9, 1 + n % 28), -1_000) for n in range(195)]
    moves += [ActivityMove(f"c{n:02}", date(2026, 9, 30), -20_000) for n in range(25, 30)]

    consequences, notes = available_consequences(plan, moves)
    text = render(Preview("Recategorise 200 transaction(s)?", consequences=consequences, notes=notes))

    assert text.splitlines() == [
        "Recategorise 200 transaction(s)?",
        "Available, before → after:",
        *(f"- Cat {n} for 2026-09-01: 10.00 → -16.00" for n in range(25, 30)),
        *(f"- Cat {n:02} for 2026-09-01: 10.00 → 3.00" for n in range(15)),
        "… and 10 more",  # Cat 15-24, 10.00 → 4.00: the smallest moves
        "This leaves 5 categories overspent: "
        + "; ".join(f"Cat {n} by 16.00 for 2026-09-01" for n in range(25, 30))
        + ".",
    ]
