"""Creating transactions (docs/tools.md#create_transactions) and deleting them again
(docs/undo.md#create_transactions): pure.

`new_transactions(snapshot, account_id, lines, today)` checks the account and each line's
category against the plan, and finds what each line looks like (likely duplicates,
docs/conventions.md#heuristics: an existing transaction of the account, or another line). Refused (`Refusal`,
one line): an account not in the plan or closed; a category not in the plan, Uncategorized, one of
YNAB's internal ones other than Inflow: Ready to Assign, a credit card payment category;
any category on a tracking account. A line's date is checked by `check_date` (today or at
most 5 years earlier, as YNAB takes them), and text by the tool, before the plan is read (the
arguments alone show them).

Each created transaction is logged by id with a SHA-256 `digest` of its date, amount,
payee, category and memo as YNAB created them (no amount, payee or memo in the log itself);
undo deletes it only while its digest is unchanged (`undo_state`). Before sending, the lines as
`tools.logic.landed_creations` keeps them, for a lost answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict

from avenir_mcp.tools.logic.duplicates import Lookalike, Lookalikes
from avenir_mcp.tools.logic.recategorise import assignable_category
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.months import years_earlier
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import quoted
from avenir_mcp.ynab_client.snapshot import Account, Category, PlanSnapshot, Transaction

OLDEST_YEARS = 5
"""YNAB takes a transaction dated at most this many years before today (and none after today)."""


def check_date(index: int, day: date, today: date) -> None:
    """Refuse transaction `index` (counted from 1) dated after `today` or more than 5 years before it.

    Checked before anything else reads the date, so no date arithmetic ever meets a year near 1
    or 9999 (docs/conventions.md#arguments).
    """
    if day > today:
        raise Refusal(
            f"Transaction {index} is dated {day.isoformat()}, after today ({today.isoformat()}): YNAB "
            "refuses future-dated transactions; the person can schedule it in YNAB instead."
        )
    oldest = years_earlier(today, OLDEST_YEARS)
    if day < oldest:
        raise Refusal(
            f"Transaction {index} is dated {day.isoformat()}, more than {OLDEST_YEARS} years ago, which "
            f"YNAB refuses: give a date from {oldest.isoformat()} to today ({today.isoformat()})."
        )


class NewLine(BaseModel):
    """One transaction to create, as the agent gave it (text checked, amount in milliunits)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    date: date
    amount: int
    payee_name: str
    memo: str | None
    category_id: str | None


@dataclass(frozen=True)
class CheckedLine:
    line: NewLine
    category: Category | None
    looks_like: Lookalike | None


def new_transactions(
    snapshot: PlanSnapshot, account_id: str, lines: Sequence[NewLine], today: date
) -> tuple[Account, list[CheckedLine]]:
    """The account and each line checked against the plan (see the module docstring)."""
    account = open_account(snapshot, account_id)
    categories = [_category(snapshot, account, index, line) for index, line in enumerate(lines, start=1)]
    keys = [(line.date, line.amount, line.payee_name) for line in lines]
    found = Lookalikes(snapshot, account.id, today, keys)
    return account, [
        CheckedLine(line, category, found.like(index, keys))
        for index, (line, category) in enumerate(zip(lines, categories, strict=True))
    ]


def open_account(snapshot: PlanSnapshot, account_id: str) -> Account:
    """The account, refused when it is not in the plan or closed."""
    account = snapshot.accounts.get(account_id)
    if account is None:
        raise not_in_plan("account", account_id, "list_accounts")
    if account.closed:
        raise Refusal(
            f"Account {quoted(account_id, 40)} is closed, so YNAB takes nothing new on it; "
            "give an open account from list_accounts."
        )
    return account


def _category(snapshot: PlanSnapshot, account: Account, index: int, line: NewLine) -> Category | None:
    if line.category_id is None:
        return None
    if not account.on_budget:
        raise Refusal(
            f"Transaction {index} has a category, but account {quoted(account.id, 40)} is a tracking "
            "account, and tracking accounts carry no categories: give category_id null."
        )
    return assignable_category(snapshot, line.category_id)


# --- the log and undo ------------------------------------------------------------------------


def digest(day: str, amount: int, payee_id: str | None, category_id: str | None, memo: str | None) -> str:
    """SHA-256 of a transaction's date, amount, payee, category and memo."""
    text = json.dumps([day, amount, payee_id, category_id, memo], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def answer_digest(created: dict[str, Any]) -> str:
    """The digest of a transaction as YNAB's answer gives it."""
    return digest(
        created["date"],
        created["amount"],
        created.get("payee_id"),
        created.get("category_id"),
        created.get("memo"),
    )


def transaction_digest(transaction: Transaction) -> str:
    """The digest of a transaction as the plan holds it now."""
    return digest(
        transaction.date.isoformat(),
        transaction.amount,
        transaction.payee_id,
        transaction.category_id,
        transaction.memo,
    )


def undo_state(snapshot: PlanSnapshot, transaction_id: str, created_as: str) -> tuple[str, str]:
    """A created transaction (`created_as`: its digest then): `restore` (delete it) while it is
    there exactly as created; `already_as_before` once it is gone (before the operation it did not
    exist); else `conflict`."""
    transaction = snapshot.transactions.get(transaction_id)
    if transaction is None:
        return "already_as_before", ""
    if transaction_digest(transaction) != created_as:
        return "conflict", "it changed since it was created (date, amount, payee, category or memo)"
    return "restore", ""
