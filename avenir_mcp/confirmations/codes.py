"""The store of what is waiting for the person: confirmation codes and questions.

Two kinds of secret wait here, each bound to a `Binding` (the change's fingerprint, its
plan, the tool, and the principal that asked):

- **codes** (`Kind.CODE`), handed to the agent when the client cannot ask the person:
  `secrets.token_urlsafe(8)` (11 URL-safe characters);
- **questions** (`Kind.QUESTION`), the nonce inside the sealed `request_state` of a
  2026-07-28 input-required round trip, so that one answer can be used once.

Rules (docs/confirmation.md#confirmation-codes, plus what issue 5 adds):

- a secret lives 600 seconds on a monotonic clock (injectable, for tests);
- it is consumed by its first use, EVEN WHEN IT DOES NOT MATCH: spending code C against
  another change, another plan, another tool or from another principal burns C. A code
  seen by the wrong party is treated as compromised; its owner simply asks again;
- at most `capacity` secrets wait at once (expired ones are purged first); when still
  full, `issue` raises a `Refusal` and nothing is issued;
- thread-safe: one lock around every read and change (never held across an `await`), or
  in Redis one script per decision.

Two stores keep these rules (docs/architecture.md#shared-state):

- `ConfirmationStore`, in this process's memory (one process serves, `REDIS_URL` unset): a
  restart forgets everything;
- `confirmations.shared_codes.SharedConfirmationStore`, in Redis (`REDIS_URL` set): a
  secret issued by one worker or process is spent by any other, once; the cap and the
  lifetime hold across all of them.

`store` is this process's: the shared one with `REDIS_URL` (`ConfirmationsConfig.ready`).

`pending()` lists what waits, for the admin, without ever exposing a secret, except a code
issued for the person (`AVENIR_MCP_CODES_TO=person`), which the admin page shows them;
`revoke(id)` withdraws one by its public id.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from avenir_mcp.values.refusal import Refusal

LIFETIME_SECONDS = 600
DEFAULT_CAPACITY = 1000


class Kind(StrEnum):
    CODE = "code"  # a confirmation code given to the agent
    QUESTION = "question"  # an input-required question waiting for the client's answer


@dataclass(frozen=True)
class Binding:
    """What a secret confirms, and for whom: spending it needs all four to match."""

    fingerprint: str
    plan_id: str
    tool: str
    principal_key: str


@dataclass(frozen=True)
class PendingConfirmation:
    """One waiting secret as the owner may see it: everything but the secret itself."""

    id: str
    kind: Kind
    tool: str
    plan_id: str
    principal_key: str
    principal_name: str
    preview: str
    issued_at: datetime
    expires_in_seconds: int
    code_for_person: str | None = None
    """The code itself, only when it was issued for the person (`AVENIR_MCP_CODES_TO=person`):
    the admin page shows it to them; nothing else may (the audit API does not)."""


@dataclass
class Entry:
    """One waiting secret as a store keeps it (`confirmations.shared_codes` too, as JSON)."""

    public_id: str
    kind: Kind
    binding: Binding
    preview: str
    principal_name: str
    issued_at: datetime
    expires_at: float
    secret_for_person: str | None = None


class ConfirmationStore:
    """Codes and questions waiting for the person, in this process's memory only."""

    def __init__(
        self,
        *,
        capacity: int = DEFAULT_CAPACITY,
        lifetime_seconds: float = LIFETIME_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.capacity = capacity
        self.lifetime_seconds = lifetime_seconds
        self._clock = clock
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        self._entries: dict[tuple[Kind, str], Entry] = {}

    def issue(
        self, kind: Kind, binding: Binding, *, preview: str, principal_name: str, for_person: bool = False
    ) -> str:
        """Remember a new secret of `kind` for `binding` and return it (a `Refusal` when the store is full).

        `for_person`: the code goes to the person, not the agent: `pending()` then carries it
        (`code_for_person`) for the admin page, the one place that shows it.
        """
        with self._lock:
            self._purge_expired()
            if len(self._entries) >= self.capacity:
                raise self._full()
            secret = self._new_secret(kind)
            self._entries[(kind, secret)] = Entry(
                public_id=secrets.token_urlsafe(9),
                kind=kind,
                binding=binding,
                preview=preview,
                principal_name=principal_name,
                issued_at=self._wall_clock(),
                expires_at=self._clock() + self.lifetime_seconds,
                secret_for_person=secret if for_person else None,
            )
            return secret

    def spend(self, kind: Kind, secret: str, binding: Binding) -> bool:
        """Consume `secret`; True only if it was waiting, unexpired, and bound to `binding`.

        The secret is removed whatever the outcome: a first use that does not match burns it.
        """
        with self._lock:
            entry = self._entries.pop((kind, secret), None)
            now = self._clock()
        return entry is not None and confirms(entry, binding, now)

    def waiting(self, kind: Kind, secret: str) -> bool:
        """Is `secret` waiting, unexpired? Nothing is consumed: a cheap check before the plan is
        read, so an answer this store never issued costs YNAB nothing (`spend` decides later)."""
        with self._lock:
            entry = self._entries.get((kind, secret))
            return entry is not None and self._clock() < entry.expires_at

    def pending(self) -> list[PendingConfirmation]:
        """What waits now, oldest first; never the secrets themselves."""
        with self._lock:
            self._purge_expired()
            now = self._clock()
            entries = sorted(self._entries.values(), key=lambda entry: entry.expires_at)
            return [public_view(entry, now) for entry in entries]

    def revoke(self, confirmation_id: str) -> bool:
        """Withdraw the waiting secret whose public id is `confirmation_id`; False if none."""
        with self._lock:
            for key, entry in self._entries.items():
                if entry.public_id == confirmation_id:
                    del self._entries[key]
                    return True
            return False

    def _full(self) -> Refusal:
        return Refusal(
            f"Too many confirmations are waiting ({self.capacity}): nothing was changed. "
            f"Let them expire ({self.lifetime_seconds / 60:g} minutes) or have the owner "
            "revoke some in the admin, then call again."
        )

    def _purge_expired(self) -> None:
        now = self._clock()
        for key in [key for key, entry in self._entries.items() if now >= entry.expires_at]:
            del self._entries[key]

    def _new_secret(self, kind: Kind) -> str:
        # 64 random bits: a collision is practically impossible, but never reuse a live one.
        while True:
            secret = secrets.token_urlsafe(8)
            if (kind, secret) not in self._entries:
                return secret


def confirms(entry: Entry, binding: Binding, now: float) -> bool:
    """Does the spent `entry` confirm `binding`: unexpired at `now`, bound to all four?"""
    return now < entry.expires_at and entry.binding == binding


def public_view(entry: Entry, now: float) -> PendingConfirmation:
    return PendingConfirmation(
        id=entry.public_id,
        kind=entry.kind,
        tool=entry.binding.tool,
        plan_id=entry.binding.plan_id,
        principal_key=entry.binding.principal_key,
        principal_name=entry.principal_name,
        preview=entry.preview,
        issued_at=entry.issued_at,
        expires_in_seconds=max(0, int(entry.expires_at - now)),
        code_for_person=entry.secret_for_person,
    )


# The store of this server process: confirm.ask, the admin page, the audit API and the console
# share it. With `REDIS_URL`, `ConfirmationsConfig.ready` puts the shared one here instead
# (`confirmations.shared_codes`), so one process never imports Redis's client.
store = ConfirmationStore()
