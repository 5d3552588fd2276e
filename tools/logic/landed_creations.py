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
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from ynab_client.snapshot import PlanSnapshot, Transaction


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


@dataclass(frozen=True)
class AskedLine:
    """One line as the log keeps it before sending: its date, its content's digest, and the ids
    of the account's transactions that already had that content (stored as
    `{"date", "content", "existing"}`)."""

    date: str
    content: str
    existing: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"date": self.date, "content": self.content, "existing": list(self.existing)}

    @classmethod
    def from_json(cls, stored: dict[str, Any]) -> AskedLine:
        return cls(stored["date"], stored["content"], tuple(stored["existing"]))


def asked_lines(
    snapshot: PlanSnapshot, account_id: str, lines: Sequence[tuple[str, int, str, str | None]]
) -> tuple[AskedLine, ...]:
    """Each line (date, amount, payee name, memo) as the log keeps it, with the transactions of
    the account that already have its content in `snapshot` (the plan the write is sent on)."""
    digests = [content_digest(account_id, *line) for line in lines]
    now = _with_content(snapshot, account_id, {line[0] for line in lines}, set(digests), taken=())
    return tuple(
        AskedLine(line[0], digest, tuple(t.id for t in now[digest]))
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
