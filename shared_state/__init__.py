"""What every process of the service must see alike: the shared store (docs/architecture.md#shared-state).

One process (the embedded default, `REDIS_URL` unset) keeps pending confirmations and codes,
the YNAB hour, plans' freshness and settling's turn in its own memory, and `shared()` is None.
Several workers or processes (`REDIS_URL` set) keep them in Redis, through Django's cache
framework and its built-in Redis backend (`django.core.cache.backends.redis.RedisCache`, the
`shared` alias in settings.CACHES): `shared()` is that cache, the same for every process.

Its operations that decide between processes are single Redis commands, so two processes can
never both win: `add` (SET NX: the first to take a key has it), `delete` (DEL: True for the one
process that removed it, which is how a secret is spent once), `incr` (INCR). Every key is
given its lifetime when written (the alias's default is "never": no key outlives its use by
accident of a default).
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import BaseCache, caches

SHARED_ALIAS = "shared"


def shared() -> BaseCache | None:
    """The cache every process of the service shares, or None when one process serves alone."""
    return caches[SHARED_ALIAS] if settings.REDIS_URL else None
