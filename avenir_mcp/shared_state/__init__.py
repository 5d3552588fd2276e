"""What every process of the service must see alike: the shared store (docs/architecture.md#shared-state).

One process (the embedded default, `REDIS_URL` unset) keeps pending confirmations and codes,
the YNAB hour, plans' freshness and settling's turn in its own memory, and `shared()` is None.
Several workers or processes (`REDIS_URL` set) keep them in Redis, through Django's cache
framework (the `shared` alias in settings.CACHES): `shared()` is that cache, the same for every
process, and `redis_connection()` its connection, for what a cache's API cannot say in one
command (a sorted set, a script).

The backend is django-redis rather than Django's built-in Redis backend: besides the cache API
it gives the connection (`get_redis_connection`) as public API, `set(..., nx=True)`, and locks
that expire (`lock`), which the built-in one keeps private or lacks; a decision between
processes must be one Redis command or script, never a read then a write.

Operations that decide between processes: `add`/`set(nx=True)` (SET NX: the first to take a key
has it), `delete` (DEL: True for the one process that removed it, so a secret is spent once),
`incr` (INCR), `lock(name, timeout=…)` (held by one process at a time, freed when it expires).
Every key is written with its lifetime (the alias's default is "never": no key outlives its use
by accident of a default).
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import caches

# django-redis ships no types: its cache and connection are typed where they are returned here.
from django_redis import get_redis_connection  # type: ignore[import-untyped]
from django_redis.cache import RedisCache  # type: ignore[import-untyped]
from redis import Redis

SHARED_ALIAS = "shared"


def shared() -> RedisCache | None:
    """The cache every process of the service shares, or None when one process serves alone."""
    if not settings.REDIS_URL:
        return None
    cache = caches[SHARED_ALIAS]
    assert isinstance(cache, RedisCache), "CACHES['shared'] must be django-redis's RedisCache"
    return cache


def redis_connection() -> Redis | None:
    """The shared store's Redis connection, or None when one process serves alone. Keys written
    through it carry no prefix of their own: make them with `shared().make_key(name)`, so they
    carry the cache's `KEY_PREFIX` like every other key of the store."""
    if not settings.REDIS_URL:
        return None
    connection: Redis = get_redis_connection(SHARED_ALIAS)
    return connection
