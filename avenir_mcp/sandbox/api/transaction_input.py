"""Reading and checking transaction writes (POST, PUT, PATCH) before anything is written.

Refusals, as YNAB's (400, detail naming the field, `(index: N)` for an item of a list):
no future dates (nor older than 5 years), memo <= 500, payee_name <= 200, import_id <= 36,
unknown ids, sub amounts that do not add up, a transfer to the same account or a split
that is a transfer. Credit card payment categories are ignored when put on a transaction.
On an existing split, its lines, amount, date and category cannot change (YNAB refuses:
delete the split and create it again). The other leg of a split's transfer line can only
be changed through the split.

The ids a write may refer to (`PlanReferences`) are loaded once per request, so a whole
request is checked before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from avenir_mcp.sandbox.api.fields import MISSING, Body
from avenir_mcp.sandbox.budget_math.calendar import add_years_clamped
from avenir_mcp.sandbox.ledger.rows import PreparedRows
from avenir_mcp.sandbox.ledger.transactions import LineSpec, TransactionSpec, is_leg_of_split_line
from avenir_mcp.sandbox.models import Account, Category, Payee, Plan, Subtransaction, Transaction

CLEARED = ("cleared", "uncleared", "reconciled")
FLAGS = ("red", "orange", "yellow", "green", "blue", "purple", "")
SUM_MISMATCH = "amount must equal the sum of subtransaction amounts"


@dataclass(frozen=True)
class AccountRef:
    id: str
    on_budget: bool
    transfer_payee_id: str | None


_LIVE_ACCOUNTS = PreparedRows(
    lambda plan_id: Account.objects.filter(plan_id=plan_id, deleted=False).values_list(
        "id", "on_budget", "transfer_payee_id"
    )
)
_LIVE_PAYEES = PreparedRows(
    lambda plan_id: Payee.objects.filter(plan_id=plan_id, deleted=False).values_list(
        "id", "transfer_account_id"
    )
)
_LIVE_CATEGORIES = PreparedRows(
    lambda plan_id: Category.objects.filter(plan_id=plan_id, deleted=False).values_list("id", "role")
)


class PlanReferences:
    """Live accounts, payees (with the account a transfer payee points to) and categories."""

    def __init__(self, plan: Plan) -> None:
        self.accounts = {row[0]: AccountRef(*row) for row in _LIVE_ACCOUNTS.fetch(plan.pk)}
        self.payees = dict(_LIVE_PAYEES.fetch(plan.pk))
        self.roles = dict(_LIVE_CATEGORIES.fetch(plan.pk))
        self.split_category_id = next(
            (c for c, role in self.roles.items() if role == Category.ROLE_SPLIT), None
        )

    def account(self, body: Body, name: str, account_id: str) -> AccountRef:
        if account_id not in self.accounts:
            raise body.fail(f"{name} does not exist in this plan")
        return self.accounts[account_id]

    def payee(self, body: Body, name: str, payee_id: str) -> str | None:
        """Check a payee id; the account it transfers to, if it is a transfer payee."""
        if payee_id not in self.payees:
            raise body.fail(f"{name} does not exist in this plan")
        return self.payees[payee_id]

    def category_role(self, body: Body, name: str, category_id: str) -> str:
        role = self.roles.get(category_id)
        if role is None or role == Category.ROLE_SPLIT:
            raise body.fail(f"{name} does not exist in this plan")
        return role


class TransactionReader:
    """Reads transaction objects of one request against the plan's ids and today (UTC)."""

    def __init__(self, refs: PlanReferences, today: date) -> None:
        self.refs = refs
        self.today = today

    def new(self, data: Any, index: int | None) -> TransactionSpec:
        body = Body(data, index, "transaction")
        values = self._values(body, creating=True)
        import_id = body.text("import_id", max_length=36)
        if import_id not in (MISSING, None):
            values["import_id"] = import_id
        lines = self._lines(body, values["account_id"])
        if lines is not None:
            self._check_split(body, values, lines, values["amount"])
        self._check_transfer(body, values["account_id"], values.get("_transfer_to"))
        return _spec(values, lines)

    def existing(self, data: Any, index: int | None, txn: Transaction) -> TransactionSpec:
        body = Body(data, index, "transaction")
        values = self._values(body, creating=False)
        account_id = values.get("account_id", txn.account_id)
        lines = self._lines(body, account_id)
        split_lines = list(
            Subtransaction.objects.filter(transaction=txn, deleted=False).order_by("sort_order")
        )
        if split_lines:
            _check_split_unchanged(body, values, txn, lines, split_lines)
            lines = None
        elif lines is not None:
            self._check_split(body, values, lines, values.get("amount", txn.amount))
            if txn.transfer_account_id and "_transfer_to" not in values:
                raise body.fail("a transfer cannot be split")
        _check_leg_of_split(body, values, txn)
        transfer_to = values.get("_transfer_to", txn.transfer_account_id)
        self._check_transfer(body, account_id, transfer_to)
        return _spec(values, lines)

    def _values(self, body: Body, *, creating: bool) -> dict[str, Any]:
        values: dict[str, Any] = {}
        account_id = body.uuid("account_id", required=creating, nullable=False)
        if account_id is not MISSING:
            values["account_id"] = self.refs.account(body, "account_id", account_id).id
        day = body.day("date", required=creating)
        if day is not MISSING:
            values["date"] = self._check_date(body, day)
        _put(values, "amount", body.integer("amount", required=creating))
        _put(values, "memo", body.text("memo", max_length=500))
        _put(values, "cleared", body.choice("cleared", CLEARED))
        _put(values, "approved", body.boolean("approved"))
        _put(values, "flag_color", body.choice("flag_color", FLAGS, nullable=True))
        self._payee(body, values)
        self._category(body, values)
        return values

    def _check_date(self, body: Body, day: date) -> date:
        if day > self.today or day < add_years_clamped(self.today, -5):
            raise body.fail("date must not be in the future or over 5 years ago")
        return day

    def _payee(self, body: Body, values: dict[str, Any]) -> None:
        payee_id = body.uuid("payee_id")
        payee_name = body.text("payee_name", max_length=200)
        if payee_id not in (MISSING, None):
            values["payee_id"] = payee_id
            values["_transfer_to"] = self.refs.payee(body, "payee_id", payee_id)
        elif payee_name not in (MISSING, None):
            values["payee_name"] = payee_name
            values["_transfer_to"] = None
        elif payee_id is None:
            values["payee_id"] = None
            values["_transfer_to"] = None

    def _category(self, body: Body, values: dict[str, Any]) -> None:
        category_id = body.uuid("category_id")
        if category_id in (MISSING, None):
            _put(values, "category_id", category_id)
            return
        if self.refs.category_role(body, "category_id", category_id) != Category.ROLE_CREDIT_CARD_PAYMENT:
            values["category_id"] = category_id  # a card payment category is ignored, as YNAB does

    def _lines(self, body: Body, account_id: str) -> list[LineSpec] | None:
        items = body.objects("subtransactions")
        if not items:
            return None
        lines = []
        for item in items:
            line = Body(item, body.index, "subtransactions")
            values: dict[str, Any] = {"amount": line.integer("amount", required=True)}
            _put(values, "memo", line.text("memo", max_length=500))
            self._payee(line, values)
            self._category(line, values)
            if values.get("_transfer_to") == account_id:
                raise line.fail("a subtransaction cannot transfer to the account of its transaction")
            values.pop("_transfer_to", None)
            lines.append(LineSpec(**values))
        return lines

    def _check_split(self, body: Body, values: dict[str, Any], lines: list[LineSpec], amount: int) -> None:
        if sum(line.amount for line in lines) != amount:
            raise body.fail(SUM_MISMATCH)
        if values.get("_transfer_to"):
            raise body.fail("a split transaction cannot itself be a transfer (put the transfer on a line)")
        values.pop("category_id", None)

    def _check_transfer(self, body: Body, account_id: str, transfer_to: str | None) -> None:
        if transfer_to is not None and transfer_to == account_id:
            raise body.fail("payee_id is the transfer payee of the transaction's own account")


def _check_split_unchanged(
    body: Body, values: dict[str, Any], txn: Transaction, lines: list[LineSpec] | None, split_lines: list
) -> None:
    if values.get("amount", txn.amount) != txn.amount:
        raise body.fail("amount of an existing split transaction cannot be changed")
    if values.get("date", txn.date) != txn.date:
        raise body.fail("date of an existing split transaction cannot be changed")
    if values.get("account_id", txn.account_id) != txn.account_id:
        raise body.fail("account_id of an existing split transaction cannot be changed")
    if "category_id" in values and values["category_id"] != txn.category_id:
        raise body.fail("category_id of an existing split transaction cannot be changed")
    if values.get("_transfer_to"):
        raise body.fail("a split transaction cannot itself be a transfer")
    if lines is not None and _as_lines(split_lines) != [(x.amount, x.category_id, x.memo) for x in lines]:
        raise body.fail(
            "subtransactions of an existing split transaction cannot be updated "
            "(delete the transaction and create it again)"
        )


def _as_lines(split_lines: list) -> list[tuple]:
    return [(line.amount, line.category_id, line.memo) for line in split_lines]


def _check_leg_of_split(body: Body, values: dict[str, Any], txn: Transaction) -> None:
    """The other leg of a split's transfer line moves only with its split."""
    if not is_leg_of_split_line(txn):
        return
    for name in ("amount", "date", "account_id"):
        if name in values and values[name] != getattr(txn, name):
            raise body.fail(
                f"{name} of a transfer made by a split line cannot be changed here: edit the split"
            )
    if "_transfer_to" in values and values["_transfer_to"] != txn.transfer_account_id:
        raise body.fail("payee_id of a transfer made by a split line cannot be changed here: edit the split")


def _put(values: dict[str, Any], name: str, value: Any) -> None:
    if value is not MISSING:
        values[name] = value


def _spec(values: dict[str, Any], lines: list[LineSpec] | None) -> TransactionSpec:
    values.pop("_transfer_to", None)
    return TransactionSpec(values=values, lines=lines)
