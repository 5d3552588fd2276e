"""`create_account`: open an account with today's balance, once the person agreed
(docs/tools.md#create_account). Not undoable: YNAB's API cannot close or delete an account, so the
preview says it is permanent.

The checks are `tools.logic.accounts`. One `POST /plans/{plan_id}/accounts` with `name`,
`type` and `balance` (YNAB enters the balance as a Starting Balance transaction dated today, and
gives a credit card its payment category). The subject is the arguments: name, type, balance in
milliunits. The log keeps the new account's id (`AccountCreation`). With no reversal to compare
through, a lost answer is settled from the open accounts' names (`settle`,
docs/confirmation.md#when-ynabs-answer-is-lost).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from avenir_mcp.confirmations.preview import Preview
from avenir_mcp.mcp_surface.arguments import AmountValue, amount_arg, given_text
from avenir_mcp.mcp_surface.presenting import money
from avenir_mcp.oplog.changes import Applied, Built, Change
from avenir_mcp.oplog.kinds import PREFIX, Settlement
from avenir_mcp.oplog.models import Operation
from avenir_mcp.oplog.records import Record, Subject
from avenir_mcp.tools.logic.accounts import AccountType, new_account, open_account_named
from avenir_mcp.tools.writes.flow import WriteResult, WriteTool, write_tool
from avenir_mcp.values.money import shown_amount
from avenir_mcp.values.text import in_quotes, shown_name
from avenir_mcp.ynab_client import PlanSnapshot, YnabClient

CHECK = "Check with list_accounts whether the account exists before trying again."
NAME_LIMIT = 100
PERMANENT = "Permanent: YNAB's API cannot close or delete accounts; close it in YNAB to take it back."


class AccountCreatedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    account_id: str | None = Field(description="The new account's id; null until it is created.")
    name: str = Field(description="Its name (one line, at most 80 characters).")
    type: str = Field(description="Its type, as given.")
    on_budget: bool = Field(
        description="True for a budget account; false for a tracking account (assets, liabilities)."
    )
    balance: str = Field(description="Its balance today, currency units; what is owed negative.")


class AccountCreated(AccountCreatedFields, WriteResult):
    pass


@dataclass(frozen=True)
class AccountOpening:
    """create_account's arguments, checked: name, type and balance (milliunits)."""

    name: str
    type: AccountType
    balance: int


class AccountCreationSubject(Subject):
    """The new account's name, type and balance (milliunits): all stored."""

    name: str
    type: str
    balance: int


class AccountCreation(Record):
    """What the log keeps of an account opened (not undoable: settling reads it): its id once
    YNAB named it (None until then, stored as null)."""

    account_id: str | None


class CreateAccount(WriteTool[AccountOpening, AccountCreationSubject, AccountCreatedFields, AccountCreation]):
    """Opens one account; never undone; a lost answer settled from the open accounts' names."""

    name = "create_account"
    result = AccountCreated

    def build(
        self, snapshot: PlanSnapshot, arguments: AccountOpening
    ) -> Built[AccountCreationSubject, AccountCreatedFields, AccountCreation]:
        account = new_account(snapshot, arguments.name, arguments.type, arguments.balance)
        balance = shown_amount(snapshot.settings.currency_format, account.balance)
        question = f"Create account {in_quotes(account.name)} ({account.type}) with a balance of {balance}?"
        return Change(
            subject=AccountCreationSubject(name=account.name, type=account.type, balance=account.balance),
            preview=Preview(question=question, notes=[PERMANENT]),
            fields=AccountCreatedFields(
                account_id=None,
                name=shown_name(account.name),
                type=account.type,
                on_budget=account.on_budget,
                balance=money(snapshot, account.balance),
            ),
            undoable=False,
            undo_data=AccountCreation(account_id=None),
            check=CHECK,
        )

    async def apply(
        self,
        client: YnabClient,
        snapshot: PlanSnapshot,
        change: Change[AccountCreationSubject, AccountCreatedFields, AccountCreation],
    ) -> Applied[AccountCreatedFields]:
        subject = change.subject
        sent = {"name": subject.name, "type": subject.type, "balance": subject.balance}
        answer = await client.post_account(snapshot.plan_id, sent, check_hint=CHECK)
        created = answer.get("account")
        found = created.get("id") if isinstance(created, dict) else None
        account_id = found if isinstance(found, str) else None
        return Applied(
            fields=change.fields.model_copy(update={"account_id": account_id}),
            undo_data=AccountCreation(account_id=account_id),
            lead=f"Created account {in_quotes(subject.name)} ({subject.type}).",
        )

    async def settle(self, client: YnabClient, snapshot: PlanSnapshot, op: Operation) -> Settlement:
        """The name was free among open accounts when asked, so an open account of that name (any
        case) now is the one created → `applied`, its id recorded; none → `failed`, nothing created."""
        asked = AccountCreationSubject.from_stored(op.subject)
        created = open_account_named(snapshot, asked.name)
        if created is None:
            said = f"{PREFIX} no open account is named {in_quotes(asked.name)}: nothing was created."
            return Settlement("failed", said, "none")
        said = f"{PREFIX} account {in_quotes(asked.name)} is open ({created.id}): it was created."
        return Settlement("applied", said, "all", undo_data=AccountCreation(account_id=created.id))


@write_tool(CreateAccount(), title="Open an account", toolset="accounts", destructive=False, idempotent=False)
def create_account(
    name: Annotated[str, Field(description=f"Its name, 1-{NAME_LIMIT} characters.", max_length=1000)],
    type: Annotated[
        AccountType,
        Field(
            description="checking, savings or cash (budget accounts), creditCard (a budget account with its "
            "payment category), otherAsset or otherLiability (tracking accounts)."
        ),
    ],
    balance: Annotated[
        AmountValue,
        Field(
            description='Its balance today, in currency units (e.g. "2500.00"); what is owed negative '
            '(a card owing 150.00: "-150.00"). At most 3 decimals.'
        ),
    ],
) -> AccountOpening:
    """Open an account in the plan with its balance today, after the person agreed. It cannot be undone.

    YNAB enters the balance as a Starting Balance transaction dated today (on a budget account
    it is money to assign; a card's debt is just debt). The name must not be another open
    account's (names are compared without case). The person is asked to confirm (`Create
    account ‘Emergency fund’ (savings) with a balance of 2500.00?`, with a warning that it is
    permanent: YNAB's API cannot close or delete accounts, only closing it in YNAB takes it
    back) in their client, or you get a confirmation code to return only once they agreed.
    Refused: a positive balance on a creditCard or otherLiability (what is owed is negative).
    list_accounts shows it afterwards.
    """
    return AccountOpening(
        name=given_text(name, field="name", max_length=NAME_LIMIT) or "",
        type=type,
        balance=amount_arg(balance, field="balance"),
    )
