"""Writing scheduled transactions (docs/tools.md#create_scheduled_transaction,
docs/tools.md#update_scheduled_transaction, docs/tools.md#delete_scheduled_transaction) and
their undo (docs/undo.md): the checks and the words. Pure.

A schedule's writable fields are a `Schedule`: what YNAB's `SaveScheduledTransaction` takes
(account, next date, frequency, amount, payee, category, memo, flag), the payee by id (a
transfer: the other account's transfer payee) or, until YNAB found or made it, by name. A PUT
sends every field (`body`): what it leaves out YNAB clears.

Refused (`Refusal`, one line): a frequency not YNAB's (`tools.logic.schedules.FREQUENCIES`); a
date not after today or more than 5 years ahead; an amount of zero; both or neither of a payee
and a transfer account (create); an account or transfer account not in the plan or closed, or
the same account twice; a category on a tracking account, or one not assignable
(`tools.logic.recategorise.assignable_category`); a schedule not in the plan (deleted ones are
not in a snapshot); a split schedule to update (the API cannot write its lines).
"""

from __future__ import annotations

import hashlib
import json
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict

from avenir_mcp.tools.logic.new_transactions import open_account
from avenir_mcp.tools.logic.recategorise import assignable_category
from avenir_mcp.tools.logic.schedules import FREQUENCIES
from avenir_mcp.tools.logic.transaction_lines import category_shown
from avenir_mcp.values.ids import not_in_plan
from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.refusal import Refusal
from avenir_mcp.values.text import in_quotes, listed, quoted, shown_name
from avenir_mcp.ynab_client.snapshot import Account, PlanSnapshot, ScheduledTransaction

YEARS_AHEAD = 5
"""YNAB takes a schedule's date after today and at most this many years ahead."""
SCHEDULE_SOURCE = "list_scheduled_transactions"
ONCE = "never"
"""YNAB's frequency of a schedule that falls once."""


class Schedule(BaseModel):
    """A scheduled transaction's writable fields (module docstring); `date` is its next date,
    `flag` its colour or None, `payee_name` the payee's name (given, or as the plan has it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    account_id: str
    date: date
    frequency: str
    amount: int
    payee_id: str | None
    payee_name: str | None
    transfer_account_id: str | None
    category_id: str | None
    memo: str | None
    flag: str | None


def schedule_of(snapshot: PlanSnapshot, scheduled: ScheduledTransaction) -> Schedule:
    """The schedule as the plan holds it."""
    payee = snapshot.payees.get(scheduled.payee_id or "")
    return Schedule(
        account_id=scheduled.account_id,
        date=scheduled.date_next,
        frequency=scheduled.frequency,
        amount=scheduled.amount,
        payee_id=scheduled.payee_id,
        payee_name=payee.name if payee is not None else None,
        transfer_account_id=scheduled.transfer_account_id,
        category_id=scheduled.category_id,
        memo=scheduled.memo,
        flag=scheduled.flag_color or None,
    )


def schedule_from_answer(row: dict[str, Any]) -> Schedule:
    """The schedule as YNAB's answer (`scheduled_transaction`) gives it."""
    return Schedule(
        account_id=row["account_id"],
        date=date.fromisoformat(row["date_next"]),
        frequency=row["frequency"],
        amount=row["amount"],
        payee_id=row.get("payee_id"),
        payee_name=row.get("payee_name"),
        transfer_account_id=row.get("transfer_account_id"),
        category_id=row.get("category_id"),
        memo=row.get("memo"),
        flag=row.get("flag_color") or None,
    )


def body(schedule: Schedule) -> dict[str, Any]:
    """YNAB's `SaveScheduledTransaction` for `schedule`: every field, the payee by id when known."""
    payee: dict[str, Any] = (
        {"payee_id": schedule.payee_id}
        if schedule.payee_id is not None
        else {"payee_id": None, "payee_name": schedule.payee_name}
    )
    return {
        "account_id": schedule.account_id,
        "date": schedule.date.isoformat(),
        "frequency": schedule.frequency,
        "amount": schedule.amount,
        **payee,
        "category_id": schedule.category_id,
        "memo": schedule.memo,
        "flag_color": schedule.flag,
    }


def same_schedule(current: Schedule, wanted: Schedule) -> bool:
    """`current` has every field of `wanted` (the payee by id; its name may have changed)."""
    return current.model_dump(exclude={"payee_name"}) == wanted.model_dump(exclude={"payee_name"})


def alike(snapshot: PlanSnapshot, wanted: Schedule, *, besides: str | None = None) -> tuple[str, ...]:
    """The ids of the plan's schedules (other than `besides`) with every field of `wanted`, sorted."""
    return tuple(
        sorted(
            scheduled.id
            for scheduled in snapshot.scheduled_transactions.values()
            if scheduled.id != besides and same_schedule(schedule_of(snapshot, scheduled), wanted)
        )
    )


class ScheduleKept(BaseModel):
    """A schedule as the log of its creation keeps it: its fields but the amount, payee name and
    memo, which only their `digest` stands for (docs/tools.md: no payee, memo or amount in the log)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    account_id: str
    date: date
    frequency: str
    payee_id: str | None
    transfer_account_id: str | None
    category_id: str | None
    flag: str | None
    digest: str


PRIVATE = frozenset({"amount", "payee_name", "memo"})
"""A schedule's fields the log of a creation keeps only as a digest."""


def kept(schedule: Schedule) -> ScheduleKept:
    """`schedule` as the log keeps it (`ScheduleKept`)."""
    return ScheduleKept(**schedule.model_dump(exclude=set(PRIVATE)), digest=_digest(schedule))


def _digest(schedule: Schedule) -> str:
    """SHA-256 of the amount, the payee's name (any case) and the memo."""
    text = json.dumps(
        [schedule.amount, (schedule.payee_name or "").casefold(), schedule.memo], ensure_ascii=False
    )
    return hashlib.sha256(text.encode()).hexdigest()


def matches_kept(current: Schedule, wanted: ScheduleKept) -> bool:
    """`current` is the schedule `wanted` keeps (its payee by id when the log knows it)."""
    if wanted.payee_id is not None and current.payee_id != wanted.payee_id:
        return False
    public = kept(current).model_dump(exclude={"payee_id"})
    return public == wanted.model_dump(exclude={"payee_id"})


def alike_kept(snapshot: PlanSnapshot, wanted: ScheduleKept) -> tuple[str, ...]:
    """The ids of the plan's schedules `wanted` could be, sorted."""
    return tuple(
        sorted(
            scheduled.id
            for scheduled in snapshot.scheduled_transactions.values()
            if matches_kept(schedule_of(snapshot, scheduled), wanted)
        )
    )


def kept_label(snapshot: PlanSnapshot, wanted: ScheduleKept) -> str:
    """A kept schedule as far as the log tells: `monthly from Checking, next on 2026-10-01`."""
    account = account_words(snapshot, wanted.account_id)
    return f"{frequency_words(wanted.frequency)} from {account}, next on {wanted.date.isoformat()}"


# --- the checks ----------------------------------------------------------------------------


def check_frequency(frequency: str) -> str:
    """`frequency` when it is one of YNAB's, else a refusal listing them."""
    if frequency not in FREQUENCIES:
        raise Refusal(
            f"frequency {quoted(frequency)} is not one of YNAB's: give one of {', '.join(FREQUENCIES)}."
        )
    return frequency


def years_later(day: date, years: int) -> date:
    """The same calendar day `years` years after `day` (29 February → 28 February)."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)


def check_schedule_date(day: date, today: date) -> date:
    """`day` when after `today` and at most 5 years ahead, as YNAB takes a schedule's date."""
    last = years_later(today, YEARS_AHEAD)
    if not today < day <= last:
        raise Refusal(
            f"date {day.isoformat()} is not after today ({today.isoformat()}) or is more than "
            f"{YEARS_AHEAD} years ahead: a schedule's next date must be from "
            f"{(date.fromordinal(today.toordinal() + 1)).isoformat()} to {last.isoformat()} "
            "(for what already happened, use create_transactions)."
        )
    return day


def check_amount(amount: int) -> int:
    if amount == 0:
        raise Refusal("amount is 0: give the amount the schedule moves (money out negative, in positive).")
    return amount


def live_schedule(snapshot: PlanSnapshot, scheduled_transaction_id: str) -> ScheduledTransaction:
    """The schedule, refused when it is not in the plan (or deleted)."""
    scheduled = snapshot.scheduled_transactions.get(scheduled_transaction_id)
    if scheduled is None:
        raise not_in_plan("scheduled transaction", scheduled_transaction_id, SCHEDULE_SOURCE)
    return scheduled


def is_split(snapshot: PlanSnapshot, scheduled: ScheduledTransaction) -> bool:
    return bool(snapshot.scheduled_subtransactions_of(scheduled.id))


def refuse_split(snapshot: PlanSnapshot, scheduled: ScheduledTransaction) -> None:
    if is_split(snapshot, scheduled):
        raise Refusal(
            f"Scheduled transaction {quoted(scheduled.id, 40)} is a split, and YNAB's API cannot write a "
            "split schedule's lines: the person can change it in YNAB itself."
        )


def transfer_payee(snapshot: PlanSnapshot, account: Account, transfer_account_id: str) -> Account:
    """The other account of a transfer from `account`: in the plan, open, not `account` itself."""
    other = open_account(snapshot, transfer_account_id)
    if other.id == account.id:
        raise Refusal(
            f"Account {quoted(account.id, 40)} is both the schedule's account and its transfer account: "
            "give two different accounts."
        )
    return other


def check_category(snapshot: PlanSnapshot, account: Account, category_id: str | None) -> str | None:
    """`category_id` when the account may carry it (none on a tracking account) and it is assignable."""
    if category_id is None:
        return None
    if not account.on_budget:
        raise Refusal(
            f"Account {quoted(account.id, 40)} is a tracking account, and tracking accounts carry no "
            "categories: give no category_id."
        )
    return assignable_category(snapshot, category_id).id


def check_schedule(snapshot: PlanSnapshot, schedule: Schedule) -> Schedule:
    """`schedule` (its date, frequency and amount checked already) against the plan: its account,
    transfer account and category; a transfer gets its payee (the other account's transfer payee)."""
    account = open_account(snapshot, schedule.account_id)
    category_id = check_category(snapshot, account, schedule.category_id)
    if schedule.transfer_account_id is None:
        return schedule.model_copy(update={"category_id": category_id})
    other = transfer_payee(snapshot, account, schedule.transfer_account_id)
    payee = snapshot.payees.get(other.transfer_payee_id or "")
    return schedule.model_copy(
        update={
            "category_id": category_id,
            "payee_id": other.transfer_payee_id,
            "payee_name": payee.name if payee is not None else None,
        }
    )


# --- the words -----------------------------------------------------------------------------


def frequency_words(frequency: str) -> str:
    """How a frequency reads in a sentence: YNAB's name, `once` for `never`."""
    return "once" if frequency == ONCE else frequency


def amount_words(snapshot: PlanSnapshot, amount: int) -> str:
    """A schedule's amount as a statement reads: outflow bare, inflow with `+`."""
    return shown_amount(snapshot.settings.currency_format, amount, statement=True)


def counterpart(snapshot: PlanSnapshot, schedule: Schedule) -> str:
    """Who the money goes to or comes from: the payee, or the transfer's other account."""
    other = snapshot.accounts.get(schedule.transfer_account_id or "")
    return shown_name(other.name if other is not None else schedule.payee_name, "(no payee)")


def account_words(snapshot: PlanSnapshot, account_id: str) -> str:
    account = snapshot.accounts.get(account_id)
    return shown_name(account.name if account is not None else account_id)


def schedule_label(snapshot: PlanSnapshot, schedule: Schedule) -> str:
    """`Landlord; 1200.00 monthly from Checking` (inflow: `Employer; +2500.00 monthly into Checking`)."""
    direction = "into" if schedule.amount > 0 else "from"
    return listed(
        [
            counterpart(snapshot, schedule),
            f"{amount_words(snapshot, schedule.amount)} {frequency_words(schedule.frequency)} "
            f"{direction} {account_words(snapshot, schedule.account_id)}",
        ]
    )


def creation_question(snapshot: PlanSnapshot, schedule: Schedule) -> str:
    """`Schedule 1200.00 to Landlord from Checking; monthly from 2026-10-01; as Rent?`
    (inflow: `Schedule +2500.00 from Employer into Checking; …`; once: `…; once on 2026-10-01`)."""
    amount, who = amount_words(snapshot, schedule.amount), counterpart(snapshot, schedule)
    account = account_words(snapshot, schedule.account_id)
    moved = f"from {who} into {account}" if schedule.amount > 0 else f"to {who} from {account}"
    when = (
        f"once on {schedule.date.isoformat()}"
        if schedule.frequency == ONCE
        else f"{schedule.frequency} from {schedule.date.isoformat()}"
    )
    category = [f"as {category_shown(snapshot, schedule.category_id)}"] if schedule.category_id else []
    return listed([f"Schedule {amount} {moved}", when, *category]) + "?"


def detail_lines(schedule: Schedule) -> list[str]:
    """The preview's lines for what the question leaves out: the memo and the flag."""
    lines = [f"memo: {in_quotes(schedule.memo)}"] if schedule.memo else []
    return lines + ([f"flag: {schedule.flag}"] if schedule.flag else [])


UPDATABLE = ("date", "frequency", "amount", "payee_name", "category_id", "memo", "account_id", "flag")
"""The fields update_scheduled_transaction changes, in its arguments' order."""
FIELD_WORDS = {
    "date": "next date",
    "frequency": "frequency",
    "amount": "amount",
    "payee_name": "payee",
    "category_id": "category",
    "memo": "memo",
    "account_id": "account",
    "flag": "flag",
}


def field_value(snapshot: PlanSnapshot, schedule: Schedule, field: str) -> str:
    """One field of `schedule` as a preview shows it (`none` for no memo or flag)."""
    if field == "date":
        return schedule.date.isoformat()
    if field == "frequency":
        return frequency_words(schedule.frequency)
    if field == "amount":
        return amount_words(snapshot, schedule.amount)
    if field == "payee_name":
        return counterpart(snapshot, schedule)
    if field == "category_id":
        return category_shown(snapshot, schedule.category_id)
    if field == "memo":
        return in_quotes(schedule.memo) if schedule.memo else "none"
    if field == "account_id":
        return account_words(snapshot, schedule.account_id)
    return schedule.flag or "none"


def changed_fields(
    reference: Schedule, other: Schedule, fields: tuple[str, ...] = UPDATABLE
) -> tuple[str, ...]:
    """The `fields` (of `UPDATABLE`) that differ between the two, in that order; the payee by id
    when both have one, else by name in any case (one named only: YNAB finds a payee by name)."""
    return tuple(field for field in fields if not _same_field(reference, other, field))


def _same_field(reference: Schedule, other: Schedule, field: str) -> bool:
    if field != "payee_name":
        return bool(getattr(reference, field) == getattr(other, field))
    if reference.payee_id is not None and other.payee_id is not None:
        return reference.payee_id == other.payee_id
    return (reference.payee_name or "").casefold() == (other.payee_name or "").casefold()


def changes_words(snapshot: PlanSnapshot, fields: tuple[str, ...], start: Schedule, end: Schedule) -> str:
    """`amount 1200.00 → 1250.00; next date 2026-10-01 → 2026-10-03`."""
    return listed(
        f"{FIELD_WORDS[field]} {field_value(snapshot, start, field)} → {field_value(snapshot, end, field)}"
        for field in fields
    )
