"""The shared store: None for one process, Redis (a real redis-server) once REDIS_URL is set."""

from __future__ import annotations

import subprocess
import sys

from django.conf import settings

from avenir_mcp.shared_state import redis_connection, shared
from tests.helpers.processes import service_env


def test_one_process_keeps_its_state_to_itself():
    assert settings.REDIS_URL == ""
    assert shared() is None


def test_with_redis_url_the_store_is_redis_and_a_key_is_spent_by_one_process(shared_store):
    store = shared()
    assert store is not None
    assert store.add("code:abc", "bound to plan 1", timeout=600) is True
    assert store.add("code:abc", "a second issue", timeout=600) is False  # SET NX: the first keeps it
    # Another process with the same REDIS_URL (and this test's key prefix) sees the key and spends it.
    program = (
        "import sys, django; from django.conf import settings; "
        "settings.CACHES['shared']['KEY_PREFIX'] = sys.argv[1]; django.setup(); "
        "from avenir_mcp.shared_state import shared; "
        "print(shared().get('code:abc'), shared().delete('code:abc'))"
    )
    prefix = settings.CACHES["shared"]["KEY_PREFIX"]
    other = subprocess.run(
        [sys.executable, "-c", program, prefix],
        env=service_env(REDIS_URL=shared_store),
        capture_output=True,
        text=True,
        check=True,
    )
    assert other.stdout.split() == ["bound", "to", "plan", "1", "True"]
    assert store.delete("code:abc") is False  # already spent, elsewhere


def test_a_lock_of_the_store_is_held_by_one_process_and_expires(shared_store):
    store = shared()
    assert store is not None
    first = store.lock("settling", timeout=30)
    assert first.acquire(blocking=False) is True
    assert store.lock("settling", timeout=30).acquire(blocking=False) is False
    first.release()
    assert store.lock("settling", timeout=30).acquire(blocking=False) is True


def test_the_connection_is_the_stores_own():
    assert redis_connection() is None


def test_with_redis_url_the_connection_reaches_the_same_redis(shared_store):
    connection = redis_connection()
    assert connection is not None
    connection.set("avenir-mcp:test:direct", b"1", ex=60)
    assert connection.getdel("avenir-mcp:test:direct") == b"1"
    assert connection.get("avenir-mcp:test:direct") is None
