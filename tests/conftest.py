"""Shared test harness: a real database and the real service on a real socket.

The whole suite (each pytest-xdist worker, under `make test`) shares one test database
(created once by pytest-django, its name suffixed per worker) and one uvicorn server running
`avenir_site.asgi:application` in a background thread on a free port, as `make run` does.
Tests isolate themselves by working on plans of their own (each seeded with a fresh id),
not by rolling back: the server thread must see what a test writes, and the reverse. Tests
that only read may share a module's plan (`tests.helpers.shared_plans`).
Helpers the tests import are in `tests/helpers/`; conftest.py files hold only fixtures and hooks
(here: the Hypothesis profile every property test runs under, and a run that leaves new or
changed files in the checkout fails, `tests.helpers.checkout`).
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import hypothesis
import pytest
from django.conf import settings

from avenir_mcp.shared_state import SHARED_ALIAS
from tests.helpers.checkout import files_in, left_behind
from tests.helpers.clocks import SyncClock
from tests.helpers.redis_server import given_or_started
from tests.served import ServedApp

# Property tests draw the same examples on every run: what they cover (and a failure) does not
# depend on luck, on a developer's machine or in CI's two runs. No deadline per example (a loaded
# CI machine is slow, not wrong) and no example database left in the worktree.
# `HYPOTHESIS_PROFILE=default` explores new examples instead.
hypothesis.settings.register_profile("suite", derandomize=True, deadline=None, database=None)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))
# Hypothesis also caches Unicode tables, under ./.hypothesis unless told: outside the checkout.
HYPOTHESIS_CACHE = Path(tempfile.gettempdir()) / "avenir-mcp-hypothesis"
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(HYPOTHESIS_CACHE))

_CHECKOUT_BEFORE = pytest.StashKey[dict]()
# Folders whose every test starts a process (Chromium): marked `subprocesses` as a whole. Elsewhere
# a test (or module) that starts one carries the mark itself.
_STARTING_PROCESSES = ("browser",)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    folders = [Path(__file__).parent / name for name in _STARTING_PROCESSES]
    for item in items:
        if any(item.path.is_relative_to(folder) for folder in folders):
            item.add_marker(pytest.mark.subprocesses)


def pytest_sessionstart(session: pytest.Session) -> None:
    """What the checkout holds before the run (once, in the process that reports: not in an
    xdist worker). Only in a git checkout: `make mutation` runs the tests in mutmut's copy
    (mutants/), where mutmut itself writes while they run."""
    root = Path(settings.BASE_DIR)
    if not hasattr(session.config, "workerinput") and (root / ".git").exists():
        session.stash[_CHECKOUT_BEFORE] = files_in(root)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The run fails when it left new or changed files in the checkout (tests/helpers/checkout.py)."""
    before = session.stash.get(_CHECKOUT_BEFORE, None)
    if before is None:
        return
    found = left_behind(before, files_in(Path(settings.BASE_DIR)))
    if found:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write("\n")
        reporter.write_sep("=", "files left in the checkout", red=True)
        reporter.write_line("A test wrote into the checkout (or a file was edited during the run):")
        for line in found:
            reporter.write_line(f"  {line}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def django_db_setup(
    django_test_environment, django_db_blocker, django_db_modify_db_settings
) -> Iterator[None]:
    """The test database, always created: pytest-django's own fixture creates one only when a
    collected test is marked `django_db`, and these tests are not (they share it unmarked)."""
    from django.test.utils import setup_databases, teardown_databases

    with django_db_blocker.unblock():
        created = setup_databases(verbosity=0, interactive=False, aliases={"default"})
    yield
    with django_db_blocker.unblock():
        _close_other_sessions()
        teardown_databases(created, verbosity=0)
    # SQLite's WAL side files outlive the database while other threads' connections are open.
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3"):
        for suffix in ("-wal", "-shm"):
            Path(f"{database['TEST']['NAME']}{suffix}").unlink(missing_ok=True)


def _close_other_sessions() -> None:
    """End the server threads' database sessions, which PostgreSQL would not drop a database under.

    Connections are per thread; the server's worker threads keep theirs until they exit,
    which daemon threads never do before the run ends.
    """
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


@pytest.fixture(scope="session", autouse=True)
def _database(django_db_setup, django_db_blocker) -> Iterator[None]:
    """Open the test database to every test and to the server thread, for the whole run."""
    with django_db_blocker.unblock():
        yield


@pytest.fixture(scope="session", autouse=True)
def _test_settings(tmp_path_factory) -> None:
    """Settings every test runs under: the sandbox's test hooks on, nothing external.

    Every call syncs (no freshness window): most tests change the sandbox behind the
    service's back and read the result at once. Tests of the window set it themselves.
    Stored plans go to this run's own folder.
    """
    settings.SANDBOX_FAULTS_ENABLED = True
    settings.YNAB_API_KEY = ""
    # Settling runs once when the test server starts, never on its own later: tests settle when
    # they mean to (oplog.settling), and expect rows as their own calls left them meanwhile.
    settings.AVENIR_MCP_SETTLE_SECONDS = 0
    settings.AVENIR_MCP_SETTLE_AFTER_SECONDS = 0  # a test waits for the sandbox itself before settling
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.AVENIR_MCP_FRESHNESS_SECONDS = 0
    # The suite registers hundreds of OAuth clients, all from 127.0.0.1; the limit's own tests
    # (tests/oauth/test_registration_limit.py) set a small one and register from other addresses.
    settings.AVENIR_MCP_REGISTRATION_LIMIT = 1_000_000
    settings.AVENIR_MCP_DATA_DIR = tmp_path_factory.mktemp("data")
    # Test owners' passwords are hashed the cheap way (Django's advice for test suites: PBKDF2
    # costs ~0.4 s of CPU per hash, and an OAuth test hashes twice); the production hashers stay
    # listed, so a password a process started by a test stored still checks.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher", *settings.PASSWORD_HASHERS]


@pytest.fixture(autouse=True)
def _whole_pacing_budget() -> Iterator[None]:
    """Each test starts with YNAB's whole hourly budget: the suite sends far more than 180.
    The plan listing is asked again too, so a plan the test made is known (mcp_surface.plan_lookup).

    The recorded request history goes too, so a process started by a test (stdio), which
    seeds its pacer from those rows, starts with the whole budget as well. Tests of pacing
    itself build their own `Pacer`.
    """
    from avenir_mcp.mcp_surface.plan_lookup import forget_plan_listing
    from avenir_mcp.ynab_client.pacing import reset_pacing
    from avenir_mcp.ynab_requests.models import YnabRequest

    YnabRequest.objects.all().delete()
    reset_pacing()
    forget_plan_listing()  # a plan a test just made is not in a listing an earlier test got
    yield
    reset_pacing()


@pytest.fixture
def freshness_clock(monkeypatch) -> SyncClock:
    """The clocks the plan cache's freshness window and the write marks that end it are measured
    on, and a sync's `as_of` is dated by (`ynab_client.clock`), standing still until the test moves
    them: a window ends when the test says, not when a loaded machine happens to get there. The
    wall clock starts at this whole second; `wall_time()` is a sync's `as_of` sent now."""
    from avenir_mcp.ynab_client import clock

    fake = SyncClock(epoch=float(int(time.time())))
    monkeypatch.setattr(clock, "monotonic", fake)
    monkeypatch.setattr(clock, "wall", fake.wall)
    return fake


@pytest.fixture(scope="session")
def live_service(_database, _test_settings) -> Iterator[ServedApp]:
    """The running service; `live_service.url` is its base URL (no trailing slash)."""
    server = ServedApp()
    server.start()
    previous = (settings.AVENIR_MCP_SELF_URL, settings.AVENIR_MCP_YNAB_URL)
    settings.AVENIR_MCP_SELF_URL = server.url
    settings.AVENIR_MCP_YNAB_URL = f"{server.url}/sandbox/v1"
    yield server
    settings.AVENIR_MCP_SELF_URL, settings.AVENIR_MCP_YNAB_URL = previous
    server.stop()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> Iterator[str]:
    """The address of a real Redis (tests/helpers/redis_server.py): CI's, or one this process started."""
    server = given_or_started(tmp_path_factory.mktemp("redis"))
    yield server.url
    server.stop()


@pytest.fixture
def shared_store(settings, redis_url: str) -> str:
    """REDIS_URL set for this test, as in a service of several workers: `shared_state.shared()` is
    Redis, under a key prefix of this test's own (no test sees another's keys). pytest-django's
    `settings` puts the single-process settings back after the test (and Django drops the cache
    connections when CACHES changes)."""
    settings.REDIS_URL = redis_url
    settings.CACHES = {
        **settings.CACHES,
        SHARED_ALIAS: {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
            "TIMEOUT": None,
        },
    }
    return redis_url


@pytest.fixture(params=["one process", "shared store"])
def either_store(request) -> str:
    """The test runs twice: as one process alone (REDIS_URL unset), then with the shared store
    (`shared_store`), which must keep the same contract; the value names which."""
    if request.param == "shared store":
        request.getfixturevalue("shared_store")
    return request.param


@pytest.fixture(scope="session")
def sandbox_url(live_service: ServedApp) -> str:
    """Base URL of the sandbox's YNAB API v1, served for real."""
    return f"{live_service.url}/sandbox/v1"
