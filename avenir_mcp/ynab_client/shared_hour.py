"""One token's YNAB hour in the shared store, alike for every process (docs/ynab_budget.md#several-processes).

With `REDIS_URL` set, a `Pacer` keeps its accounting here instead of in its own memory:

- `…:sent`, a sorted set: every request counted in the hour, scored by its instant (the
  pacer's clock, so tests move time without sleeping); `…:reads:<spender>` the same for the
  reads counted against one caller's share, `…:spenders` the callers that have such a set;
- `…:paused`: the instant the pause after a 429 ends (judged by the pacer's clock);
- `…:seq`: a counter that makes members unique (several requests may share an instant).

Deciding whether a request may leave and counting it is one Lua script (`take`), so two
processes can never both take the last place. Redis's own expiry (real time) only collects
keys nobody used for longer than they matter (`KEPT_SECONDS`); instants are always judged by
the pacer's clock. Instants travel as Python's `repr` of a float and come back as Redis's
17-digit scores, so none is rounded on the way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import cast

from redis import Redis

from avenir_mcp.shared_state import redis_connection, shared

KEPT_SECONDS = 2 * 3600
"""How long a key of the hour outlives its last use (real time; a margin over the hour)."""

NO_LIMIT = -1

# KEYS: sent, reads (of the spender, or unused), paused, seq, spenders
# ARGV: now, cutoff, check (1: pause and ceiling apply), ceiling, spender ('' for none), share, kept
_TAKE = """
local now, cutoff = ARGV[1], ARGV[2]
local ceiling, share, kept = tonumber(ARGV[4]), tonumber(ARGV[6]), ARGV[7]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
if ARGV[3] == '1' then
  local paused = redis.call('GET', KEYS[3])
  if paused and tonumber(now) < tonumber(paused) then return {'paused', 0, paused} end
  local used = redis.call('ZCARD', KEYS[1])
  if ceiling >= 0 and used >= ceiling then
    return {'spent', used, redis.call('ZRANGE', KEYS[1], used - ceiling, used - ceiling, 'WITHSCORES')[2]}
  end
end
if ARGV[5] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', cutoff)
  local reads = redis.call('ZCARD', KEYS[2])
  if share >= 0 and reads >= share then
    return {'share', reads, redis.call('ZRANGE', KEYS[2], reads - share, reads - share, 'WITHSCORES')[2]}
  end
end
local member = now .. ':' .. redis.call('INCR', KEYS[4])
redis.call('EXPIRE', KEYS[4], kept)
if ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[2], now, member)
  redis.call('EXPIRE', KEYS[2], kept)
  redis.call('SADD', KEYS[5], ARGV[5])
  redis.call('EXPIRE', KEYS[5], kept)
end
redis.call('ZADD', KEYS[1], now, member)
redis.call('EXPIRE', KEYS[1], kept)
return {'taken', 0, now}
"""

# KEYS: sent, reads (of the spender, or unused). ARGV: the instant, spender ('' for none)
_GIVE_BACK = """
for index, key in ipairs(KEYS) do
  if index == 1 or ARGV[2] ~= '' then
    local member = redis.call('ZRANGEBYSCORE', KEYS[index], ARGV[1], ARGV[1], 'LIMIT', 0, 1)[1]
    if member then redis.call('ZREM', KEYS[index], member) end
  end
end
"""

# KEYS: paused. ARGV: the instant the pause ends, kept. Returns the later of it and the stored one.
_PAUSE = """
local paused = redis.call('GET', KEYS[1])
if paused and tonumber(paused) >= tonumber(ARGV[1]) then return paused end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return ARGV[1]
"""

# KEYS: sent, paused, seq, spenders. ARGV: kept, the pause's end ('' for none), the keys' common
# beginning, then the stamps ('', n, n instants), then per spender: its name, n, n instants.
# Only into an absent hour.
_SEED = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local kept = ARGV[1]
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'EX', kept) end
local index = 4
while index <= #ARGV do
  local name, count = ARGV[index], tonumber(ARGV[index + 1])
  local key = KEYS[1]
  if name ~= '' then
    key = ARGV[3] .. 'reads:' .. name
    redis.call('SADD', KEYS[4], name)
    redis.call('EXPIRE', KEYS[4], kept)
  end
  for offset = 1, count do
    local stamp = ARGV[index + 1 + offset]
    redis.call('ZADD', key, stamp, stamp .. ':' .. redis.call('INCR', KEYS[3]))
  end
  if count > 0 then redis.call('EXPIRE', key, kept) end
  index = index + 2 + count
end
redis.call('EXPIRE', KEYS[3], kept)
return 1
"""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What `take` decided: `taken`, or refused as `paused`, `spent` (the hour) or `share` (the
    caller's); `used` is the count that refused it, `at` when the pause ends or a place frees
    (for `taken`: the instant counted)."""

    outcome: str
    used: int
    at: float


class SharedHour:
    """The hour of one pacer (`name`: its YNAB URL and token) in the shared store; every method is
    one Redis round trip. Build it while `shared_state.shared()` is not None."""

    def __init__(self, name: str) -> None:
        store = shared()
        connection = redis_connection()
        assert store is not None, "SharedHour needs REDIS_URL"
        assert connection is not None
        digest = hashlib.sha256(name.encode()).hexdigest()[:24]
        self._base = store.make_key(f"ynab-hour:{digest}:")
        self._redis: Redis = connection

    def _key(self, part: str) -> str:
        return f"{self._base}{part}"

    def take(
        self,
        now: float,
        cutoff: float,
        *,
        check: bool,
        ceiling: int | None,
        spender: str | None,
        share: int | None,
    ) -> Verdict:
        """Count one request at `now` unless `check` finds the hour paused or at `ceiling`, or a
        spender's reads at `share` (None: no limit). One script: no other process comes between."""
        keys = [self._key(part) for part in ("sent", f"reads:{spender or ''}", "paused", "seq", "spenders")]
        args: list[str | int] = [repr(now), repr(cutoff), int(check), _number(ceiling)]
        args += [spender or "", _number(share), KEPT_SECONDS]
        outcome, used, at = self._redis.register_script(_TAKE)(keys=keys, args=args)
        return Verdict(outcome.decode(), int(used), float(at))

    def count(self, cutoff: float, spender: str | None) -> tuple[int, int]:
        """Requests counted after `cutoff`, and the spender's reads among them (0 without one)."""
        after = f"({cutoff!r}"
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.zcount(self._key("sent"), after, "+inf")
            pipe.zcount(self._key(f"reads:{spender or ''}"), after, "+inf")
            sent, reads = pipe.execute()
        return int(sent), int(reads) if spender else 0

    def give_back(self, stamp: float, spender: str | None) -> None:
        """Take one request counted at `stamp` back (and from the spender's reads)."""
        keys = [self._key("sent"), self._key(f"reads:{spender or ''}")]
        self._redis.register_script(_GIVE_BACK)(keys=keys, args=[repr(stamp), spender or ""])

    def pause(self, until: float) -> float:
        """Pause every process until `until`, or the later end already stored; returns the end."""
        script = self._redis.register_script(_PAUSE)
        return float(script(keys=[self._key("paused")], args=[repr(until), KEPT_SECONDS]))

    def paused(self) -> float:
        """When the pause after a 429 ends (0: none was stored)."""
        value = cast(bytes | None, self._redis.get(self._key("paused")))
        return float(value) if value else 0.0

    def seed(
        self, sent_at: Iterable[float], paused_until: float | None, reads_of: Mapping[str, Iterable[float]]
    ) -> bool:
        """Count history only when the store holds no hour for this pacer (no process counted
        anything in it yet); one script, so of processes starting together one seeds. True if it did."""
        args: list[str | int] = [KEPT_SECONDS, repr(paused_until) if paused_until else "", self._base]
        for name, stamps in [("", sent_at), *reads_of.items()]:
            listed = [repr(stamp) for stamp in stamps]
            args += [name, len(listed), *listed]
        keys = [self._key("sent"), self._key("paused"), self._key("seq"), self._key("spenders")]
        return bool(self._redis.register_script(_SEED)(keys=keys, args=args))

    def clear(self) -> None:
        """Forget the hour, its pause and every caller's reads, for every process."""
        spenders = cast(set[bytes], self._redis.smembers(self._key("spenders")))
        reads = [self._key(f"reads:{name.decode()}") for name in spenders]
        self._redis.delete(*[self._key(part) for part in ("sent", "paused", "seq", "spenders")], *reads)


def _number(limit: int | None) -> int:
    return NO_LIMIT if limit is None else limit
