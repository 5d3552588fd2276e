"""The store of confirmation codes and questions in Redis, which every worker and process of the
service shares (`REDIS_URL`; docs/architecture.md#shared-state, docs/confirmation.md#confirmation-codes).

The same rules and interface as `confirmations.codes.ConfirmationStore`, across processes: a
secret issued by one is spent by any other, once; the cap and the lifetime hold across all.
Each decision (issue under the cap, spend once, revoke) is one Lua script over the store's
three keys, so two processes never both win. Expiry instants are kept in the entries and
judged with the store's clock, the wall clock (`time.time`) by default, which every host
reads alike; Redis's own expiry only collects what nobody uses any more.

`ConfirmationsConfig.ready` makes this `confirmations.codes.store` when `REDIS_URL` is set;
with it unset nothing imports this module, nor Redis's client.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import cast

from redis import Redis
from redis.commands.core import Script

from avenir_mcp.confirmations.codes import (
    DEFAULT_CAPACITY,
    LIFETIME_SECONDS,
    Binding,
    ConfirmationStore,
    Entry,
    Kind,
    PendingConfirmation,
    confirms,
    public_view,
)
from avenir_mcp.shared_state import redis_connection, shared

# The shared store's three keys, each under the cache's KEY_PREFIX: `waiting`, a hash of
# "kind:secret" → the entry as JSON (its expiry instant inside); `expiry`, a sorted set of the
# same members scored by that instant (the oldest first: what expired is purged in one range);
# `ids`, a hash of public id → member, so the admin revokes from any process. Every change is
# one script over all three, so no process ever sees one without the others.
_KEY_NAMES = ("confirmations:waiting", "confirmations:expiry", "confirmations:ids")

# The keys outlive the last issue by the lifetime and this margin, then Redis forgets them (a
# garbage collection: whether a secret expired is judged from the instant in its entry).
_KEYS_MARGIN_SECONDS = 60

# ARGV: now, capacity, member, entry, its expiry instant, its public id, seconds the keys live.
# 1: issued; 0: full; -1: that secret is waiting already (draw another).
_ISSUE = """
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, member in ipairs(expired) do
  local entry = redis.call('HGET', KEYS[1], member)
  if entry then redis.call('HDEL', KEYS[3], cjson.decode(entry)['id']) end
  redis.call('HDEL', KEYS[1], member)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[3], ARGV[4]) == 0 then return -1 end
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[6], ARGV[3])
for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, ARGV[7]) end
return 1
"""

# ARGV: member. The entry removed (whatever it was bound to), or nil when none waited.
_SPEND = """
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], cjson.decode(entry)['id'])
return entry
"""

# ARGV: public id. 1 when a secret was withdrawn.
_REVOKE = """
local member = redis.call('HGET', KEYS[3], ARGV[1])
if not member then return 0 end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[1], member)
redis.call('ZREM', KEYS[2], member)
return 1
"""


class SharedConfirmationStore(ConfirmationStore):
    """Codes and questions waiting for the person, in the Redis every worker and process sees.

    The same rules as `ConfirmationStore`; each decision (issue under the cap, spend once,
    revoke) is one Lua script, so two processes never both win. The connection and key prefix
    are read from the settings at each call (`shared_state`).
    """

    def __init__(
        self,
        *,
        capacity: int = DEFAULT_CAPACITY,
        lifetime_seconds: float = LIFETIME_SECONDS,
        clock: Callable[[], float] = time.time,
        wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        super().__init__(
            capacity=capacity, lifetime_seconds=lifetime_seconds, clock=clock, wall_clock=wall_clock
        )

    def issue(
        self, kind: Kind, binding: Binding, *, preview: str, principal_name: str, for_person: bool = False
    ) -> str:
        issue, keys = _script(_ISSUE)
        keys_live = int(self.lifetime_seconds) + _KEYS_MARGIN_SECONDS
        while True:
            secret, now = secrets.token_urlsafe(8), self._clock()
            entry = Entry(
                public_id=secrets.token_urlsafe(9),
                kind=kind,
                binding=binding,
                preview=preview,
                principal_name=principal_name,
                issued_at=self._wall_clock(),
                expires_at=now + self.lifetime_seconds,
                secret_for_person=secret if for_person else None,
            )
            issued = issue(
                keys=keys,
                args=[
                    now,
                    self.capacity,
                    _member(kind, secret),
                    _dumps(entry),
                    entry.expires_at,
                    entry.public_id,
                    keys_live,
                ],
            )
            if issued == 0:
                raise self._full()
            if issued == 1:
                return secret

    def spend(self, kind: Kind, secret: str, binding: Binding) -> bool:
        spend, keys = _script(_SPEND)
        raw = spend(keys=keys, args=[_member(kind, secret)])
        now = self._clock()
        return raw is not None and confirms(_loads(raw), binding, now)

    def waiting(self, kind: Kind, secret: str) -> bool:
        connection, keys = _connection_and_keys()
        raw = cast("bytes | None", connection.hget(keys[0], _member(kind, secret)))
        return raw is not None and self._clock() < _loads(raw).expires_at

    def pending(self) -> list[PendingConfirmation]:
        connection, keys = _connection_and_keys()
        now = self._clock()
        entries = [_loads(raw) for raw in cast("list[bytes]", connection.hvals(keys[0]))]
        waiting = sorted(
            (entry for entry in entries if now < entry.expires_at), key=lambda entry: entry.expires_at
        )
        return [public_view(entry, now) for entry in waiting]

    def revoke(self, confirmation_id: str) -> bool:
        revoke, keys = _script(_REVOKE)
        return bool(revoke(keys=keys, args=[confirmation_id]))


def _connection_and_keys() -> tuple[Redis, list[str]]:
    cache, connection = shared(), redis_connection()
    assert cache is not None, "SharedConfirmationStore needs REDIS_URL"
    assert connection is not None
    return connection, [cache.make_key(name) for name in _KEY_NAMES]


def _script(source: str) -> tuple[Script, list[str]]:
    connection, keys = _connection_and_keys()
    return connection.register_script(source), keys


def _member(kind: Kind, secret: str) -> str:
    return f"{kind}:{secret}"


def _dumps(entry: Entry) -> str:
    return json.dumps(
        {
            "id": entry.public_id,
            "kind": entry.kind,
            "fingerprint": entry.binding.fingerprint,
            "plan_id": entry.binding.plan_id,
            "tool": entry.binding.tool,
            "principal_key": entry.binding.principal_key,
            "preview": entry.preview,
            "principal_name": entry.principal_name,
            "issued_at": entry.issued_at.isoformat(),
            "expires_at": entry.expires_at,
            "for_person": entry.secret_for_person,
        }
    )


def _loads(raw: bytes) -> Entry:
    fields = json.loads(raw)
    return Entry(
        public_id=fields["id"],
        kind=Kind(fields["kind"]),
        binding=Binding(fields["fingerprint"], fields["plan_id"], fields["tool"], fields["principal_key"]),
        preview=fields["preview"],
        principal_name=fields["principal_name"],
        issued_at=datetime.fromisoformat(fields["issued_at"]),
        expires_at=fields["expires_at"],
        secret_for_person=fields["for_person"],
    )
