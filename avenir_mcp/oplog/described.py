"""An operation in the person's terms, for the admin's pages (docs/undo.md#in-the-admin).

- `undo_state(op)`: one undo state in words: "can be undone", "undone by …", "undo of …" or
  "cannot be undone: <reason>".
- `change_rows(op, plan)`: the change as a before → after table: categories, payees, accounts,
  transactions by name, amounts as YNAB shows them in the plan's currency format
  (`values.money.displayed_amount`). `plan` is the snapshot this process holds or the plan
  store keeps (`ynab_client.kept_plan`: no request); without it (a plan never loaded here),
  names are ids' beginnings and amounts have no symbol.

Every write tool keeps its own typed subject and undo data (`oplog.records`); this module
knows none of their classes, only the shapes they share: a `before` and `after` pair (a value,
or a record compared field by field) is a row of the table; an operation without one (a
creation, a deletion, an approval) shows what its subject asked, before left empty; an undo
shows the change it undid turned back (after → before), or, when that change was no pair of
values (a creation, a deletion), what the undo put back (its `restored` records). Fields are
known by name: ids (`ID_FIELDS`, or a name ending in `_id`/`_ids`) and what only settling and
undo read (`TECHNICAL_FIELDS`: server knowledge, digests, counts; left to the technical
details). Every other integer the log keeps is an amount in milliunits
(docs/confirmation.md#what-is-logged), whatever its field's name (`amount`, `balance`, a
before/after pair's value): it always reads as money, so no milliunit figure shows outside the
technical details, a kind this module never heard of included.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from avenir_mcp.oplog.log import not_undoable_reason
from avenir_mcp.oplog.models import Operation
from avenir_mcp.values.money import displayed_amount
from avenir_mcp.ynab_client import PlanSnapshot

ID_FIELDS = (
    "id", "transaction_id", "scheduled_transaction_id", "category_id", "payee_id", "account_id",
    "category_group_id",
)  # fmt: skip
TECHNICAL_FIELDS = frozenset(
    {
        "adjustment_digest", "alike", "asked", "content", "digest", "existing", "found_by_content",
        "knowledge", "knowledge_before", "landed", "lines", "lookalike_ids", "outcome", "restore",
        "restoring", "unsure", "undo_of", "import_payee_name",
    }
)  # fmt: skip
# What a list of before/after pairs changes, named by the list (a budget's `categories` are
# assigned amounts; recategorised `transactions` change category).
PAIR_FIELDS = {"categories": "assigned", "transactions": "category", "flags": "flag"}
LISTED_NAMES = 5
NOTHING = "—"
# The order fields read in, whatever order the database gives a stored record's keys back in
# (PostgreSQL's jsonb sorts them by length, SQLite keeps them as written): these first (what a
# thing is, then a transaction as a statement reads it), then every other field alphabetically.
READING_ORDER = (
    "name", "type", "kind", "account_id", "date", "frequency", "date_first", "date_next", "payee_id",
    "payee_name", "category_id", "transfer_account_id", "amount", "balance", "bank_balance", "difference",
    "memo", "flag_color", "flag", "cleared", "approved",
)  # fmt: skip


@dataclass(frozen=True)
class UndoState:
    """The undo state in words; `other` is the operation named (the undo, or the one undone),
    `on` when that undo was made."""

    words: str
    other: str | None = None
    on: datetime | None = None


def undo_state(op: Operation) -> UndoState:
    """The one state of `op` towards undo (docs/undo.md#in-the-admin)."""
    if op.undone_by_id is not None:
        undone_on = op.undone_by.created_at if op.undone_by is not None else None
        return UndoState("undone by", op.undone_by_id, undone_on)
    if op.undo_of_id is not None:
        return UndoState("undo of", op.undo_of_id)
    if op.can_be_undone:
        return UndoState("can be undone")
    return UndoState(f"cannot be undone: {_why_not(op)}")


def _why_not(op: Operation) -> str:
    if not op.undoable:
        return not_undoable_reason(op.tool)
    return {
        "pending": "its outcome is still open (settling reads YNAB to close it)",
        "failed": "it failed: nothing of it is in YNAB",
        "undone": "it was undone already",
    }[op.status]


def undo_words(op: Operation) -> str:
    """The state in a few words, for the list (no further read): "can be undone", "undone",
    "undo of <id>", "cannot be undone"."""
    if op.undone_by_id is not None:
        return "undone"
    if op.undo_of_id is not None:
        return f"undo of {op.undo_of_id}"
    return "can be undone" if op.can_be_undone else "cannot be undone"


@dataclass(frozen=True)
class ChangeRow:
    """One line of the before → after table: the item (a category, a transaction…), the field
    changed, and its value before and after, as the person reads them."""

    item: str
    field: str
    before: str
    after: str


def change_rows(op: Operation, plan: PlanSnapshot | None) -> list[ChangeRow]:
    """`op`'s change as a before → after table (module docstring). An undo reads the operation
    it undid (`op.undo_of`: one query unless the queryset selected it)."""
    words = _Words(plan, dict(_kept_transactions(op.undo_data)))
    rows = list(words.pairs(op.undo_data, "", ""))
    if not rows and op.undo_of is not None:  # an undo: the change it undid, turned back
        undone = _Words(plan, dict(_kept_transactions(op.undo_of.undo_data)))
        rows = [
            ChangeRow(row.item, row.field, row.after, row.before)
            for row in undone.pairs(op.undo_of.undo_data, "", "")
        ]
    if not rows and isinstance(op.undo_data, dict):  # an undo of no pair: what it put back
        rows = [row for record in op.undo_data.get("restored") or () for row in words.put_back(record)]
    return rows or list(words.asked(op.subject))


class _Words:
    """Stored values in the person's words, names read from the plan held in memory, or for a
    transaction gone from it (deleted), from the record the operation kept of it (`kept`)."""

    def __init__(self, plan: PlanSnapshot | None, kept: dict[str, dict[str, Any]] | None = None) -> None:
        self.plan = plan
        self.kept = kept or {}
        self.currency = plan.settings.currency_format if plan is not None else None

    # --- before → after pairs -----------------------------------------------------------------

    def pairs(self, value: Any, field: str, item: str) -> Iterator[ChangeRow]:
        if isinstance(value, list):
            for element in value:
                yield from self.pairs(element, field, item)
        elif isinstance(value, dict):
            here = self.item_of(value) or item
            if "before" in value and "after" in value:
                yield from self.pair(value, str(value.get("field") or field), here)
            for key, inner in _in_reading_order(value):
                if key not in ("before", "after") and key not in TECHNICAL_FIELDS:
                    yield from self.pairs(inner, PAIR_FIELDS.get(str(key), str(key)), here)

    def pair(self, value: dict[str, Any], field: str, item: str) -> Iterator[ChangeRow]:
        before, after = value["before"], value["after"]
        if isinstance(before, dict) and isinstance(after, dict) and not _is_named(before):
            for key in sorted(dict.fromkeys([*before, *after]), key=_reading_place):
                if key not in TECHNICAL_FIELDS and before.get(key) != after.get(key):
                    yield self.row(item, key, before.get(key), after.get(key))
        else:
            yield self.row(item, field, before, after)

    def row(self, item: str, field: str, before: Any, after: Any) -> ChangeRow:
        return ChangeRow(item, field_words(field), self.shown(field, before), self.shown(field, after))

    # --- what a subject asked -------------------------------------------------------------------

    def asked(self, record: dict[str, Any], item: str | None = None) -> Iterator[ChangeRow]:
        """Rows of what `record` asked, before left empty: a record in a list is an item of its
        own, named by its first id; a record inside one (a schedule) has the field's name."""
        naming = None if item is not None else _naming_field(record)
        here = item if item is not None else self.name(record[naming]) if naming else ""
        for key, value in _in_reading_order(record):
            if key in TECHNICAL_FIELDS or key == naming:
                continue
            if isinstance(value, dict):
                yield from self.asked(value, field_words(key))
            elif isinstance(value, list) and value and all(isinstance(element, dict) for element in value):
                for element in value:
                    yield from self.asked(element)
            else:
                yield ChangeRow(here, field_words(key), NOTHING, self.shown(key, value))

    def put_back(self, record: Any) -> Iterator[ChangeRow]:
        """What an undo put back: a record's fields, or the item it names."""
        if isinstance(record, dict):
            yield from self.asked(record)
        else:
            yield ChangeRow(self.shown("id", str(record)), "", NOTHING, "put back")

    # --- values ------------------------------------------------------------------------------------

    def item_of(self, record: dict[str, Any]) -> str:
        """What a stored record is about, by the first id it holds ("" when none)."""
        key = _naming_field(record)
        return self.name(record[key]) if key is not None else ""

    def shown(self, field: str, value: Any) -> str:
        if value is None or value == "":
            return "none"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int):  # bool is handled above: the log's integers are amounts
            return displayed_amount(self.currency, value)
        if isinstance(value, dict):
            return self.record(value)
        if isinstance(value, list):
            return self.listed(field, value)
        if isinstance(value, str) and (_is_id_field(field) or self.known(value)):
            return self.name(value)
        return str(value)

    def record(self, value: dict[str, Any]) -> str:
        """A stored record in one line: its name, else its fields."""
        if _is_named(value):
            return str(value["name"]) if value.get("name") else self.name(str(value["id"]))
        return "; ".join(
            f"{field_words(key)} {self.shown(key, inner)}"
            for key, inner in _in_reading_order(value)
            if key not in TECHNICAL_FIELDS
        )

    def listed(self, field: str, values: list[Any]) -> str:
        """At most `LISTED_NAMES` values, `;` between them (a transaction's own text has commas)."""
        shown = [self.shown(field, value) for value in values[:LISTED_NAMES]]
        more = len(values) - LISTED_NAMES
        return "; ".join(shown) + (f" and {more} more" if more > 0 else "") if shown else "none"

    def known(self, value: str) -> bool:
        plan = self.plan
        return plan is not None and any(
            value in entities
            for entities in (
                plan.categories,
                plan.payees,
                plan.accounts,
                plan.category_groups,
                plan.transactions,
            )
        )

    def name(self, value: str) -> str:
        """An id as the person knows it: the category's, payee's, account's or group's name, a
        transaction's date, payee and amount; else the id's beginning."""
        plan = self.plan
        if plan is not None:
            for entities in _named_entities(plan):
                if value in entities:
                    return str(entities[value].name)
            if value in plan.transactions:
                return self.transaction(value)
            if value in plan.scheduled_transactions:
                return self.schedule(value)
        if value in self.kept:
            return self.kept_transaction(self.kept[value])
        return value if len(value) <= 8 else f"{value[:8]}…"

    def kept_transaction(self, record: dict[str, Any]) -> str:
        payee_id = record.get("payee_id")
        payee = record.get("payee_name") or (self.name(payee_id) if isinstance(payee_id, str) else "no payee")
        return f"{record['date']}, {payee}, {displayed_amount(self.currency, record['amount'])}"

    def transaction(self, transaction_id: str) -> str:
        assert self.plan is not None
        transaction = self.plan.transactions[transaction_id]
        payee = self.name(transaction.payee_id) if transaction.payee_id else "no payee"
        return (
            f"{transaction.date.isoformat()}, {payee}, {displayed_amount(self.currency, transaction.amount)}"
        )

    def schedule(self, schedule_id: str) -> str:
        assert self.plan is not None
        schedule = self.plan.scheduled_transactions[schedule_id]
        payee = self.name(schedule.payee_id) if schedule.payee_id else "no payee"
        amount = displayed_amount(self.currency, schedule.amount)
        return f"{schedule.frequency} from {schedule.date_next.isoformat()}, {payee}, {amount}"


def _reading_place(key: str) -> tuple[int, str]:
    return (READING_ORDER.index(key) if key in READING_ORDER else len(READING_ORDER), key)


def _in_reading_order(record: dict[str, Any]) -> list[tuple[str, Any]]:
    """`record`'s fields in `READING_ORDER`: the same table from either database."""
    return sorted(record.items(), key=lambda item: _reading_place(item[0]))


def _kept_transactions(value: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """The whole transactions an operation's undo data keeps (a deletion's), by id."""
    if isinstance(value, list):
        for element in value:
            yield from _kept_transactions(element)
    elif isinstance(value, dict):
        if isinstance(value.get("id"), str) and isinstance(value.get("amount"), int) and "date" in value:
            yield value["id"], value
        for inner in value.values():
            yield from _kept_transactions(inner)


def _named_entities(plan: PlanSnapshot) -> tuple[Mapping[str, Any], ...]:
    """What an id may name, by its name: categories, payees, accounts, category groups."""
    return (plan.categories, plan.payees, plan.accounts, plan.category_groups)


def _naming_field(record: dict[str, Any]) -> str | None:
    """The field whose id names a stored record: its first of `ID_FIELDS`."""
    return next((key for key in ID_FIELDS if isinstance(record.get(key), str)), None)


def _is_named(record: dict[str, Any]) -> bool:
    """A payee as a log keeps it: `{"id", "name"}` and nothing else."""
    return set(record) <= {"id", "name"} and bool(record)


def _is_id_field(field: str) -> bool:
    return field == "id" or field.endswith(("_id", "_ids"))


def field_words(field: str) -> str:
    """A stored field's name in words: `from_category_id` → "from category", `payee_name` → "payee"."""
    for suffix in ("_ids", "_id", "_name"):
        if field.endswith(suffix) and field != suffix.lstrip("_"):
            field = field.removesuffix(suffix) + ("s" if suffix == "_ids" else "")
            break
    return field.replace("_", " ")
