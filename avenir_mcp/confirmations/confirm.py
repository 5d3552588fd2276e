"""`ask`: the single gate every confirmed write goes through before it changes anything.

A write tool reads the plan, refuses what it must, builds the *subject* (the exact change,
as data) and its `Preview`, then calls

    decision = await ask(ctx, tool=..., plan_id=..., subject=..., preview=..., confirmation=...)

and acts on `decision.outcome`:

- `applied`: the person agreed (`decision.confirmed_by` says how): log, then write;
- `declined`: write nothing; say `decision.message`;
- `confirmation_required`: write nothing; return status `confirmation_required`,
  `decision.preview`, `decision.code` and `decision.message`;
- `input_required`: return `decision.input_required` (an `InputRequiredResult`) as is.

Refusals (bad code, plan changed, replayed answer, codes disabled, ...) are raised as
a `Refusal` whose text is the documented one; nothing is written.

How the person is asked depends on what the client declared (docs/confirmation.md#three-ways-to-ask):

1. form elicitation + protocol 2026-07-28: an input-required round trip. The first call
   returns the `confirm` question; `request_state` carries the fingerprint and a one-time
   nonce (the SDK seals it). The answering call rebuilds the subject from fresh data; a
   different fingerprint fails with `PLAN_CHANGED`; a used nonce fails: one answer, one use.
2. form elicitation + an older protocol: the same form, asked during the call
   (`elicitation/create`), waiting at most `settings.AVENIR_MCP_ELICITATION_TIMEOUT` seconds.
3. no elicitation: a single-use confirmation code for the agent to return after the
   person agreed; with `AVENIR_MCP_CODES_TO=person` (read at every call) the code goes to
   the person only (the admin's pending confirmations page) and the result says where.

Answers: accepted with `value` exactly `True` → applied; accepted with anything else →
declined; declined → declined; dismissed (cancel, timeout, or no answer) → a code; a client
that declared elicitation but could not show the form → a code. With
`AVENIR_MCP_REQUIRE_ELICITATION=1` (read at every call): dismissed → declined; a client
that cannot ask → `CLIENT_CANNOT_ASK`; a code passed → `CODES_DISABLED`.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

import anyio
from django.conf import settings
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp.types.version import is_version_at_least

from avenir_mcp.confirmations import codes, messages
from avenir_mcp.confirmations.codes import Binding, ConfirmationStore, Kind
from avenir_mcp.confirmations.fingerprint import fingerprint
from avenir_mcp.confirmations.preview import Preview, render
from avenir_mcp.confirmations.views import pending_page_url
from avenir_mcp.tokens.auth import Principal, principal_of
from avenir_mcp.values.refusal import Refusal

logger = logging.getLogger(__name__)

INPUT_REQUIRED_VERSION = "2026-07-28"
CONFIRM_INPUT_KEY = "confirm"
CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"value": {"type": "boolean", "title": "Yes, make these changes"}},
    "required": ["value"],
}

Outcome = Literal["applied", "declined", "confirmation_required", "input_required"]
ConfirmedBy = Literal["input_required", "elicitation", "code"]


@dataclass(frozen=True)
class Decision:
    """What `ask` decided. `preview` is the rendered text the person saw (or will see)."""

    outcome: Outcome
    preview: str
    fingerprint: str
    confirmed_by: ConfirmedBy | None = None
    code: str | None = None
    code_to_person: bool = False
    input_required: InputRequiredResult | None = None

    @property
    def code_for_agent(self) -> str | None:
        """The code the tool result carries: None when it went to the person (or none was issued)."""
        return None if self.code_to_person else self.code

    @property
    def applied(self) -> bool:
        return self.outcome == "applied"

    @property
    def message(self) -> str:
        """The standard sentence of an outcome that wrote nothing: `declined`, or
        `confirmation_required` (which always comes with a code)."""
        if self.outcome == "declined":
            return messages.DECLINED
        if self.code_to_person:
            return messages.person_code_message(pending_page_url())
        return messages.code_message(self.code or "")


async def ask(
    ctx: Context[Any, Any],
    *,
    tool: str,
    plan_id: str,
    subject: dict[str, Any],
    preview: Preview,
    confirmation: str | None,
    store: ConfirmationStore | None = None,
) -> Decision:
    """Ask the person to agree to `subject` (see the module docstring); never writes itself.

    `tool` is the calling tool's name; `plan_id` the real plan id (`last-used` already
    resolved); `subject` the exact change, rebuilt from fresh data on every call, so a code
    or an answer only confirms what it was issued for; `confirmation` the tool's argument.
    `store` defaults to this process's store (`codes.store`); tests may pass their own.
    Raises a `Refusal` (nothing written) for the documented refusals.
    """
    principal = principal_of(ctx)
    if principal.read_only:
        raise Refusal(messages.READ_ONLY)
    binding = Binding(fingerprint(plan_id, subject), plan_id, tool, principal.key)
    asking = _Asking(ctx, principal, store or codes.store, binding, render(preview))
    if confirmation is not None:
        return asking.spend_code(confirmation)
    if not client_can_elicit_form(ctx):
        return asking.client_cannot_ask()
    if uses_input_required(ctx):
        return asking.input_required_round()
    return await asking.elicit_in_call()


def client_can_elicit_form(ctx: Context[Any, Any]) -> bool:
    """Did the client declare form elicitation? A bare `elicitation: {}` means form (the SDK's rule)."""
    capabilities = ctx.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def uses_input_required(ctx: Context[Any, Any]) -> bool:
    """Is this call at 2026-07-28 or later, where the server cannot send requests mid-call?"""
    version = ctx.protocol_version
    return version is not None and is_version_at_least(version, INPUT_REQUIRED_VERSION)


def answers_in_this_call(ctx: Context[Any, Any], confirmation: str | None) -> bool:
    """Does this call carry the person's answer, so `ask` decides at once without asking anyone:
    a code, or the answer to an input-required question? (False: `ask` may ask the person during
    the call and wait minutes for them, or returns a question or a code.)"""
    answered_question = (
        uses_input_required(ctx) and client_can_elicit_form(ctx) and ctx.request_state is not None
    )
    return confirmation is not None or answered_question


def refuse_an_answer_not_waiting(
    ctx: Context[Any, Any],
    *,
    tool: str,
    plan_id: str,
    confirmation: str | None,
    store: ConfirmationStore | None = None,
) -> None:
    """Before the plan is read for a call carrying an answer (`answers_in_this_call`): refuse, as
    `ask` would, a code or an input-required answer that cannot confirm anything (codes disabled,
    or a secret this server is not waiting for: never issued, expired, used). Nothing is spent,
    and nothing is sent to YNAB for it; `ask` spends a waiting one once the change is rebuilt."""
    store = store or codes.store
    if confirmation is not None:
        if _require_elicitation():
            raise Refusal(messages.CODES_DISABLED)
        if not store.waiting(Kind.CODE, confirmation):
            _log_refused("a confirmation code", tool, plan_id, principal_of(ctx))
            raise Refusal(messages.CODE_REFUSED)
        return
    _fingerprint, nonce = _read_state(ctx.request_state or "")
    if not store.waiting(Kind.QUESTION, nonce):
        _log_refused("an answer already used, expired or revoked", tool, plan_id, principal_of(ctx))
        raise Refusal(messages.ANSWER_NOT_VALID)


def _log_refused(what: str, tool: str, plan_id: str, principal: Principal) -> None:
    # The owner's trace of refused attempts (never the code itself): many in a row may
    # mean an agent is trying codes it should not have.
    logger.warning("Refused %s for %s on plan %s from %s", what, tool, plan_id, principal.key)


def _require_elicitation() -> bool:
    return bool(settings.AVENIR_MCP_REQUIRE_ELICITATION)


@dataclass(frozen=True)
class _Asking:
    """One call to `ask`: who asks, for what, and the text the person sees."""

    ctx: Context[Any, Any]
    principal: Principal
    store: ConfirmationStore
    binding: Binding
    preview: str

    def spend_code(self, code: str) -> Decision:
        if _require_elicitation():
            raise Refusal(messages.CODES_DISABLED)
        if not self.store.spend(Kind.CODE, code, self.binding):
            self._refuse("a confirmation code", messages.CODE_REFUSED)
        return self._applied("code")

    def client_cannot_ask(self) -> Decision:
        """The client cannot show the question (not declared, or it failed to)."""
        if _require_elicitation():
            raise Refusal(messages.CLIENT_CANNOT_ASK)
        return self._code_issued()

    def dismissed(self) -> Decision:
        """The person closed the question without answering: not a no, unless required."""
        if _require_elicitation():
            return self._decision("declined")
        return self._code_issued()

    def input_required_round(self) -> Decision:
        state = self.ctx.request_state
        if state is None:
            return self._question()
        asked_fingerprint, nonce = _read_state(state)
        asked = Binding(
            asked_fingerprint, self.binding.plan_id, self.binding.tool, self.binding.principal_key
        )
        if not self.store.spend(Kind.QUESTION, nonce, asked):
            self._refuse("an answer already used, expired or revoked", messages.ANSWER_NOT_VALID)
        if asked_fingerprint != self.binding.fingerprint:
            self._refuse("an answer to a preview the plan no longer matches", messages.PLAN_CHANGED)
        answer = (self.ctx.input_responses or {}).get(CONFIRM_INPUT_KEY)
        return self._read_answer(answer if isinstance(answer, ElicitResult) else None, "input_required")

    async def elicit_in_call(self) -> Decision:
        try:
            with anyio.fail_after(settings.AVENIR_MCP_ELICITATION_TIMEOUT):
                answer = await self.ctx.session.elicit_form(
                    self.preview, requested_schema=CONFIRM_SCHEMA, related_request_id=self.ctx.request_id
                )
        except TimeoutError:
            return self.dismissed()
        except (MCPError, ValueError):
            # No back-channel (stateless or JSON-only HTTP), a client error, or a malformed
            # answer: the person was not (properly) asked, so this counts as "cannot show it".
            return self.client_cannot_ask()
        return self._read_answer(answer, "elicitation")

    def _read_answer(self, answer: ElicitResult | None, via: ConfirmedBy) -> Decision:
        if answer is None or answer.action == "cancel":
            return self.dismissed()
        if answer.action == "accept" and (answer.content or {}).get("value") is True:
            return self._applied(via)
        return self._decision("declined")

    def _question(self) -> Decision:
        nonce = self._issue(Kind.QUESTION)
        request = ElicitRequest(
            params=ElicitRequestFormParams(message=self.preview, requested_schema=CONFIRM_SCHEMA)
        )
        result = InputRequiredResult(
            input_requests={CONFIRM_INPUT_KEY: request},
            request_state=_write_state(self.binding.fingerprint, nonce),
        )
        return self._decision("input_required", input_required=result)

    def _code_issued(self) -> Decision:
        """A code: in the result for the agent, or (`AVENIR_MCP_CODES_TO=person`) for the person only."""
        to_person = settings.AVENIR_MCP_CODES_TO == "person"
        code = self._issue(Kind.CODE, for_person=to_person)
        return self._decision("confirmation_required", code=code, code_to_person=to_person)

    def _issue(self, kind: Kind, *, for_person: bool = False) -> str:
        return self.store.issue(
            kind,
            self.binding,
            preview=self.preview,
            principal_name=self.principal.name,
            for_person=for_person,
        )

    def _refuse(self, what: str, message: str) -> NoReturn:
        _log_refused(what, self.binding.tool, self.binding.plan_id, self.principal)
        raise Refusal(message)

    def _applied(self, via: ConfirmedBy) -> Decision:
        return self._decision("applied", confirmed_by=via)

    def _decision(self, outcome: Outcome, **details: Any) -> Decision:
        return Decision(
            outcome=outcome, preview=self.preview, fingerprint=self.binding.fingerprint, **details
        )


def _write_state(fingerprint_hex: str, nonce: str) -> str:
    """The plaintext of `request_state`; the SDK seals it (encrypted, bound to tool, args, principal)."""
    return json.dumps({"fingerprint": fingerprint_hex, "nonce": nonce}, separators=(",", ":"))


def _read_state(state: str) -> tuple[str, str]:
    """(fingerprint, nonce) from the `request_state` `_write_state` wrote.

    Nothing else can arrive here: the SDK unseals only a state sealed with this server's key,
    for this tool, these arguments and this principal, and refuses anything else before the
    tool runs (`test_a_tampered_request_state_is_refused_by_the_sdk`).
    """
    data = json.loads(state)
    return data["fingerprint"], data["nonce"]
