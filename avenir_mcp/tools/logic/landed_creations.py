"""Which of a create_transactions' lines are in YNAB when its answer was lost, found by their
content (docs/undo.md#create_transactions-whose-answer-was-lost): pure.

With no answer, YNAB's ids for the new transactions are never learnt. So before sending, the log
keeps for each line asked (`AskedLine`): its date, the `content_digest` of its account, date,
amount, payee (case-folded: YNAB files a payee name under an existing payee of the same name in
another case) and memo (a SHA-256: no amount, payee or memo in the log itself), and the ids of
the account's transactions that already had that content then (`existing`). The tool sets no
`import_id` (YNAB would then keep it from matching a bank import), so content is all there is.

`find_landed(snapshot, account_id, asked, taken)` looks at the account's transactions now,
only those of the dates asked. A candidate for a line has its content, is not one of that
line's `existing` (a real duplicate the person entered before the write is never claimed) and
is not `taken` (claimed by another operation's log, e.g. the agent entering it again after the
lost answer). Lines of the same content share their candidates: as many or fewer than the lines
→ each goes to one line in order, and lines left without one are `missing`; more candidates than
lines → those lines are `ambiguous` (YNAB cannot tell which of them the write entered) and none
of them is claimed.

What settling then records (`settled_by_content`, `settled_by_delta`, `cannot_look`; the tool's
`settle` reads YNAB and keeps the ids found) names lines by number and date, and transactions
by id: never their payee, memo or amount.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict

from avenir_mcp.ynab_client.snapshot import PlanSnapshot, Transaction

HOW = "by their date, amount, payee and memo"


def content_digest(account_id: str, day: str, amount: int, payee_name: str, memo: str | None) -> str:
    """SHA-256 of what a line asks for: account, date, amount, payee (case-folded) and memo."""
    text = json.dumps([account_id, day, amount, payee_name.casefold(), memo], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def transaction_content(snapshot: PlanSnapshot, transaction: Transaction) -> str:
    """The `content_digest` of a transaction as the plan holds it now."""
    payee = snapshot.payees.get(transaction.payee_id) if transaction.payee_id else None
    return content_digest(
        transaction.account_id,
        transaction.date.isoformat(),
        transaction.amount,
        payee.name if payee is not None else "",
        transaction.memo,
    )


class AskedLine(BaseModel):
    """One line as the log keeps it before sending: its date, its content's digest, and the ids
    of the account's transactions that already had that content (stored as
    `{"date", "content", "existing"}`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    date: str
    content: str
    existing: tuple[str, ...] = ()


def asked_lines(
    snapshot: PlanSnapshot, account_id: str, lines: Sequence[tuple[str, int, str, str | None]]
) -> tuple[AskedLine, ...]:
    """Each line (date, amount, payee name, memo) as the log keeps it, with the transactions of
    the account that already have its content in `snapshot` (the plan the write is sent on)."""
    digests = [content_digest(account_id, *line) for line in lines]
    now = _with_content(snapshot, account_id, {line[0] for line in lines}, set(digests), taken=())
    return tuple(
        AskedLine(date=line[0], content=digest, existing=tuple(t.id for t in now[digest]))
        for line, digest in zip(lines, digests, strict=True)
    )


@dataclass(frozen=True)
class Ambiguous:
    """Lines (numbered from 1) of one content that more transactions than lines match (`ids`)."""

    lines: tuple[int, ...]
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Landing:
    """What `find_landed` found: `found` (line number, transaction) in line order, the line numbers
    `missing`, and the `ambiguous` groups."""

    found: tuple[tuple[int, Transaction], ...] = ()
    missing: tuple[int, ...] = ()
    ambiguous: tuple[Ambiguous, ...] = ()


def find_landed(
    snapshot: PlanSnapshot, account_id: str, asked: Sequence[AskedLine], taken: Collection[str]
) -> Landing:
    """The lines asked, matched with the account's transactions now (see the module docstring)."""
    candidates = _with_content(
        snapshot, account_id, {line.date for line in asked}, {line.content for line in asked}, taken
    )
    groups: dict[str, list[int]] = defaultdict(list)
    for number, line in enumerate(asked, start=1):
        groups[line.content].append(number)
    found: list[tuple[int, Transaction]] = []
    missing: list[int] = []
    ambiguous: list[Ambiguous] = []
    for content, numbers in groups.items():
        existing = set(asked[numbers[0] - 1].existing)
        new = [t for t in candidates[content] if t.id not in existing]
        if len(new) > len(numbers):
            ambiguous.append(Ambiguous(tuple(numbers), tuple(t.id for t in new)))
            continue
        found.extend(zip(numbers, new, strict=False))
        missing.extend(numbers[len(new) :])
    return Landing(tuple(sorted(found, key=lambda pair: pair[0])), tuple(sorted(missing)), tuple(ambiguous))


def _with_content(
    snapshot: PlanSnapshot, account_id: str, dates: set[str], digests: set[str], taken: Collection[str]
) -> dict[str, list[Transaction]]:
    """The account's transactions of those dates whose content is one of `digests`, by digest, in
    id order (only those dates are hashed, so a long history costs nothing), none of `taken`."""
    matching: dict[str, list[Transaction]] = defaultdict(list)
    days = {date.fromisoformat(day) for day in dates}  # compared as dates: no text per transaction
    for transaction in snapshot.transactions_in_account(account_id):
        if transaction.date not in days or transaction.id in taken:
            continue
        digest = transaction_content(snapshot, transaction)
        if digest in digests:
            matching[digest].append(transaction)
    for listed in matching.values():
        listed.sort(key=lambda t: t.id)
    return matching


# --- what settling records -------------------------------------------------------------------


@dataclass(frozen=True)
class Settled:
    """What a lost answer's lines tell: how much of the write `landed`, and the log's words (`said`,
    after settling's own prefix)."""

    landed: Literal["all", "part", "none", "unsure"]
    said: str


def settled_by_content(asked: Sequence[AskedLine], landing: Landing, account: str) -> Settled | None:
    """The lines found (every one, or some), or only ambiguous ones; None when none was found
    nor ambiguous (then only the plan's delta can tell: `settled_by_delta`)."""
    if not landing.found:
        if not landing.ambiguous:
            return None
        return Settled(
            "unsure",
            f"{_ambiguous(landing)}. Check them with find_transactions; undo_operation deletes none.",
        )
    named = ", ".join(f"transaction {number} ({t.id})" for number, t in landing.found)
    total = len(asked)
    if len(landing.found) == total:
        return Settled(
            "all",
            f"all {total} transaction(s) were found on {account} {HOW}, entered by this write: {named}. "
            "undo_operation deletes exactly these.",
        )
    left = [f"not found: {_lines(asked, landing.missing)}"] if landing.missing else []
    left += [_ambiguous(landing)] if landing.ambiguous else []
    return Settled(
        "part",
        f"{len(landing.found)} of {total} transaction(s) were found on {account} {HOW}: {named}; "
        f"{'; '.join(left)}. undo_operation deletes only those found; check find_transactions for the "
        "others before entering them again.",
    )


def settled_by_delta(asked: Sequence[AskedLine], account: str, touched: int, deleted: int) -> Settled:
    """No line found, and since the write `touched` transactions of the account entered or
    changed and `deleted` deleted in the plan (a delta does not show a deleted one's account).
    None at all proves the write entered nothing; otherwise one may be a line changed since."""
    total = len(asked)
    looked = f"none of the {total} transaction(s) is on {account} {HOW}"
    if not touched and not deleted:
        return Settled(
            "none",
            f"{looked}, and no transaction was entered, changed or deleted there since the write: "
            "nothing was entered.",
        )
    return Settled(
        "unsure",
        f"{looked}, but {touched + deleted} transaction(s) were entered, changed or deleted in the plan "
        f"since the write, so one may be a line changed since. Check find_transactions on {account} for "
        f"{_lines(asked, range(1, total + 1))} before entering them again; undo_operation deletes none.",
    )


def cannot_look(dates: Sequence[str], account: str) -> Settled:
    """A row logged before the log kept its lines' content: nothing to look for."""
    return Settled(
        "unsure",
        "no answer came back and this row does not keep what its lines were, so YNAB's state cannot "
        f"show whether they were entered. Check find_transactions on {account} for {len(dates)} "
        f"transaction(s) dated {', '.join(sorted(set(dates)))} before entering them again; "
        "undo_operation cannot delete them.",
    )


def _lines(asked: Sequence[AskedLine], numbers: Sequence[int]) -> str:
    """`transaction 2 (dated 2026-09-14), transaction 3 (dated ...)`."""
    return ", ".join(f"transaction {n} (dated {asked[n - 1].date})" for n in numbers)


def _ambiguous(landing: Landing) -> str:
    return "; ".join(
        f"{', '.join(f'transaction {n}' for n in group.lines)} matched by {len(group.ids)} transactions "
        f"entered since ({', '.join(group.ids)}), more than asked, so YNAB cannot tell which"
        for group in landing.ambiguous
    )
