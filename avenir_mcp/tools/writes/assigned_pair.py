"""Two assigned amounts written one after the other, and the first put back if the second fails;
and what set_category_budget and move_money log of the amounts they set (`AssignedUndo`).

YNAB has no "move money" request: moving money is two `PATCH .../months/{month}/categories/{id}`
(each SETS an assigned amount), not atomic. `write_pair` sends them in order (move_money: the
source, then the destination; its undo: the destination, then the source) and returns only
when both are in YNAB. Otherwise it raises the error the write flow logs (`_pair_failure`): its
`message` says exactly what YNAB holds now and what the person must do; for move_money a
`WriteFailed` with the row's outcome, for an undo's pair a `WriteFailed` (half done), an
`UnknownOutcome` or a `YnabError` (nothing moved).

Every branch (docs/tools.md#move_money; a lost answer is never resent):

- not enough of the hour's request budget for the worst case below → `PacingRefused`, nothing sent;
- first write refused (`YnabError`, `PacingRefused`) → raised as is: nothing landed, nothing else sent;
- first write, no answer → read it back: made → go on with the second; not made → `nothing_moved`;
  unreadable or some other amount → `unknown` (nothing else sent);
- second write answered → done (a 2xx answer that cannot be read counts as answered: YNAB took it);
- second write, no answer → read it back: made → done; unreadable or some other amount →
  `unknown`; not made → set the first back, as when the second is refused;
- second write refused (or not sent by pacing) → set the first back to its amount before. The
  set-back is a rollback (`RequestKind.ROLLBACK`): pacing never refuses it; after a 429 (to the
  second write or to the set-back itself) it waits for YNAB's `Retry-After` when that is at most
  `SET_BACK_WAIT_LIMIT` seconds, then is sent. Answered → `nothing_moved` (both as before);
  refused, unanswered, or a longer wait asked → `half_done`: the message names the exact
  amount to set on the first category in YNAB, and the operation stays pending while
  `oplog.settling` keeps setting it back.

Anything else (a bug, a cancelled call) propagates; the write flow then logs the row `unknown`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import partial
from typing import Any, Literal

import anyio

from avenir_mcp.oplog.records import Record
from avenir_mcp.tools.logic.assigned import Logged, PairOutcome
from avenir_mcp.values.money import DecimalFormat, shown_amount
from avenir_mcp.ynab_client import (
    PacingRefused,
    RequestKind,
    UnknownOutcome,
    YnabClient,
    YnabError,
    request_kind,
)
from avenir_mcp.ynab_client.errors import WriteFailed, WriteOutcome

MOST_REQUESTS = 5
"""The worst case: first write, its read-back, second write, its read-back, setting the first back."""

SET_BACK_WAIT_LIMIT = 60
"""Seconds a set-back waits for YNAB's `Retry-After` within the call; a longer wait is left to settling."""

ReadBack = Literal["made", "not_made", "unsure"]


class AssignedUndo(Record):
    """The undo data of set_category_budget and move_money: the month and each category's
    assigned amount before and after (a move: source first).

    When a pair did not complete, `outcome` says how it ended and `landed` / `unsure` name the
    categories whose new amount is in YNAB / may be; an undo's own pair logs the month and its
    outcome only. Stored as `{"month": "YYYY-MM-01", "categories": [{"category_id", "before",
    "after"}], "outcome", "landed", "unsure"}`: `categories` when there are some, the last three
    only with an outcome. (A `Record` is the log's, a floor above `tools.logic`: hence here.)
    """

    month: date
    categories: tuple[Logged, ...] = ()
    outcome: PairOutcome | None = None
    landed: tuple[str, ...] = ()
    unsure: tuple[str, ...] = ()

    def stored(self) -> dict[str, Any]:
        left_out = set() if self.categories else {"categories"}
        if self.outcome is None:
            left_out |= {"outcome", "landed", "unsure"}
        return self.model_dump(mode="json", exclude=left_out)


@dataclass(frozen=True)
class Step:
    """One category's assigned amount to set in the pair's month: `before` → `after` (milliunits)."""

    category_id: str
    name: str  # as the person knows it, already safe to show
    before: int
    after: int


@dataclass(frozen=True)
class Pair:
    """Two steps in one month of one plan, written `first` then `second`."""

    plan_id: str
    month: date
    first: Step
    second: Step
    currency: DecimalFormat | None
    """The plan's currency format, for the amounts its failures name (`values.money.shown_amount`)."""
    check_hint: str
    settled_later: bool = False
    """True when the operation stays pending after a half write and `oplog.settling` keeps setting the
    first back (move_money); False when the person is told to set it (an undo's pair)."""
    logged: AssignedUndo | None = None
    """What the log keeps of the pair (the planned undo data; the month alone for an undo's pair); a
    failure adds its outcome to it."""


def _pair_failure(
    pair: Pair,
    message: str,
    *,
    kind: PairOutcome,
    landed: tuple[str, ...] = (),
    unsure: tuple[str, ...] = (),
    still_open: bool = False,
) -> YnabError:
    """The error the write flow logs for a pair that did not complete (see the module docstring).

    `landed` / `unsure` name the categories whose new amount is in YNAB / may be; `still_open`: a
    lost write read back as not made, which may still land. The log keeps `pair.logged` with the
    outcome, `landed` and `unsure` added, where it keeps anything.
    """
    logged = pair.logged if pair.logged is not None else AssignedUndo(month=pair.month)
    record = logged.model_copy(update={"outcome": kind, "landed": landed, "unsure": unsure})
    if pair.settled_later:  # move_money: settling finishes what is open
        # half_done: the first is changed and not yet put back; settling keeps putting it back. A lost
        # request read back as not made may still land: unknown, settling checks.
        unknown = kind == "unknown" or still_open
        outcome: WriteOutcome = "unknown" if unknown else "pending" if kind == "half_done" else "failed"
        return WriteFailed(message, outcome=outcome, undo_data=record)
    # an undo's pair: the person is told what to set
    if kind == "half_done":
        return WriteFailed(message, undo_data=record)
    if kind == "unknown":
        return UnknownOutcome(message, reason="an answer was lost and could not be checked")
    return YnabError(message)


async def write_pair(client: YnabClient, pair: Pair) -> None:
    """Both steps written, or the error the write flow logs, saying what landed (module docstring)."""
    require_room(client, MOST_REQUESTS)
    await _write_first(client, pair)
    not_made = await _write_second(client, pair)
    if not_made is not None:
        reason, cause = not_made
        await _set_first_back(client, pair, reason, cause)


def require_room(client: YnabClient, needed: int) -> None:
    """`PacingRefused` (nothing sent) unless `needed` requests fit in this hour's budget.

    Starting a pair that could not finish, or not be put back, would leave half of it in YNAB.
    A pause after a 429 is left to the first request, which the pacer refuses with its own words.
    """
    left = client.sender.pacer.room(RequestKind.WRITE)
    if left is None or left >= needed:
        return
    raise PacingRefused(
        f"Not sent: this change takes up to {needed} requests to YNAB (two writes, and reading back or "
        f"setting back if an answer is lost) and only {max(left, 0)} remain in this hour's budget; "
        "try again in a few minutes.",
        retry_at=datetime.now(UTC),
    )


async def _write_first(client: YnabClient, pair: Pair) -> None:
    """The first write; returns once it is in YNAB. Refusals propagate: nothing landed."""
    try:
        await _set(client, pair, pair.first, pair.first.after)
    except UnknownOutcome as lost:
        read_back, why = await _read_back(client, pair, pair.first)
        if read_back == "made":
            return
        if read_back == "not_made":
            raise _pair_failure(
                pair,
                f"Nothing moved: no answer came back for the change of {pair.first.name} ({lost.reason}), "
                "and reading it back shows it was not made, so nothing else was sent. If YNAB still "
                "processes it, this service finds it and puts it back.",
                kind="nothing_moved",
                still_open=True,
            ) from lost
        raise _first_unknown_failure(pair, lost, why) from lost


async def _write_second(client: YnabClient, pair: Pair) -> tuple[str, YnabError] | None:
    """The second write: None once it is in YNAB, else why it is known not to be, and the error
    (the first must then be put back). A lost answer that cannot be resolved raises the pair's failure."""
    try:
        await _set(client, pair, pair.second, pair.second.after)
        return None
    except UnknownOutcome as lost:
        read_back, why = await _read_back(client, pair, pair.second)
        if read_back == "made":
            return None
        if read_back == "unsure":
            raise _second_unknown_failure(pair, lost, why) from lost
        return (
            f"No answer came back for {pair.second.name} and reading it back shows it was not made; if "
            "YNAB still processes it, this service finds it and puts it back.",
            lost,
        )
    except YnabError as refused:  # PacingRefused too: the second was not sent
        return refused.message, refused


async def _set_first_back(client: YnabClient, pair: Pair, reason: str, cause: YnabError) -> None:
    """Put the first category back (a rollback, waiting out a short 429 first); raises
    the pair's failure saying whether that worked."""
    first, second, amount = pair.first, pair.second, partial(shown_amount, pair.currency)
    waited = False
    while True:
        wait = set_back_wait(client, cause)
        if wait is None:
            raise _half_done_failure(pair, reason, cause)
        await anyio.sleep(wait)
        try:
            with request_kind(RequestKind.ROLLBACK):  # never refused by the pacer
                await _set(client, pair, first, first.before)
            break
        except YnabError as failed:
            if failed.status != 429 or waited:
                raise _half_done_failure(pair, reason, failed) from failed
            cause, waited = failed, True
    raise _pair_failure(
        pair,
        f"Nothing moved: {second.name} could not be set to {amount(second.after)}; so {first.name} was set "
        f"back to {amount(first.before)} and both categories are as before. {reason}",
        kind="nothing_moved",
        still_open=isinstance(cause, UnknownOutcome),
    )


def set_back_wait(client: YnabClient, cause: YnabError) -> float | None:
    """Seconds to wait before a set-back after `cause`; None when YNAB asked for longer than
    `SET_BACK_WAIT_LIMIT` (settling sends it later). 0 unless YNAB answered 429 or pacing
    is waiting one out: a rollback passes pacing's count, never YNAB's `Retry-After`."""
    seconds: float
    if cause.status == 429:
        seconds = cause.retry_after if cause.retry_after is not None else SET_BACK_WAIT_LIMIT + 1
    elif isinstance(cause, PacingRefused) and client.sender.pacer.paused_until() is not None:
        seconds = (cause.retry_at - datetime.now(UTC)).total_seconds()
    else:
        return 0.0
    return max(float(seconds), 0.0) if seconds <= SET_BACK_WAIT_LIMIT else None


async def _set(client: YnabClient, pair: Pair, step: Step, budgeted: int) -> None:
    """One PATCH. A 2xx answer that could not be read still means YNAB took the change."""
    try:
        await client.patch_month_category(
            pair.plan_id,
            pair.month,
            step.category_id,
            budgeted,
            check_hint=pair.check_hint,
        )
    except YnabError as error:
        if error.status is not None and 200 <= error.status < 300:
            return
        raise


async def _read_back(client: YnabClient, pair: Pair, step: Step) -> tuple[ReadBack, str]:
    """A fresh GET of the step's month category: was the write made? And if unsure, why."""
    try:
        answer = await client.get_month_category(pair.plan_id, pair.month, step.category_id)
        assigned = answer["category"]["budgeted"]
    except YnabError as failed:
        return "unsure", f"reading it back failed too ({failed.message})"
    except (KeyError, TypeError):
        return "unsure", "YNAB's answer when reading it back could not be understood"
    if type(assigned) is int and assigned == step.after:
        return "made", ""
    if type(assigned) is int and assigned == step.before:
        return "not_made", ""
    shown = shown_amount(pair.currency, assigned) if type(assigned) is int else repr(assigned)
    return "unsure", f"reading it back shows {shown}, neither the amount before nor the one sent"


# --- the messages of the failures that leave work for the person ------------------------------------


def _first_unknown_failure(pair: Pair, lost: UnknownOutcome, why: str) -> YnabError:
    first, month, amount = pair.first, pair.month.isoformat(), partial(shown_amount, pair.currency)
    return _pair_failure(
        pair,
        f"No answer came back for the change of {first.name} to {amount(first.after)} ({lost.reason}) and "
        f"{why}, so nothing else was sent. Check {first.name} for {month} (get_category_balances): at "
        f"{amount(first.before)} nothing moved; at {amount(first.after)}: set it back to "
        f"{amount(first.before)} in YNAB, or call undo_operation, which puts back only what landed.",
        kind="unknown",
        unsure=(first.category_id,),
    )


def _second_unknown_failure(pair: Pair, lost: UnknownOutcome, why: str) -> YnabError:
    first, second, month = pair.first, pair.second, pair.month.isoformat()
    amount = partial(shown_amount, pair.currency)
    return _pair_failure(
        pair,
        f"Only half of the change may be in YNAB: {first.name} is now {amount(first.after)}, but no answer "
        f"came back for {second.name} ({lost.reason}) and {why}. Check {second.name} for {month} "
        f"(get_category_balances): at {amount(second.after)} all is done; at {amount(second.before)}: set "
        f"{first.name} back to {amount(first.before)} in YNAB, or call undo_operation, which puts back "
        "only what landed.",
        kind="unknown",
        landed=(first.category_id,),
        unsure=(second.category_id,),
    )


def _half_done_failure(pair: Pair, reason: str, failed: YnabError) -> YnabError:
    first, second, month = pair.first, pair.second, pair.month.isoformat()
    amount = partial(shown_amount, pair.currency)
    lost = isinstance(failed, UnknownOutcome)
    if lost:
        setting_back = "got no answer"
    elif failed.status == 429 and failed.retry_after is not None:
        setting_back = f"must wait {failed.retry_after} seconds (YNAB answered 429)"
    else:
        setting_back = f"failed too ({failed.message})"
    if pair.settled_later:
        to_do = (
            f"This service keeps setting {first.name} for {month} back to {amount(first.before)} (the "
            f"operation stays pending until it has, and stops if {first.name} changes meanwhile); you may "
            f"also set it to {amount(first.before)} in YNAB yourself."
        )
    else:
        to_do = f"In YNAB, set the assigned amount of {first.name} for {month} to {amount(first.before)}."
    return _pair_failure(
        pair,
        f"Only half of the change is in YNAB: {first.name} is now {amount(first.after)} assigned, but "
        f"{second.name} could not be set to {amount(second.after)}; and setting {first.name} back "
        f"{setting_back}. {to_do} {reason}",
        kind="half_done",
        landed=() if lost else (first.category_id,),
        unsure=(first.category_id,) if lost else (),
    )
