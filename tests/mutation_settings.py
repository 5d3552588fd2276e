"""A pytest plugin for `make mutation` (`-p tests.mutation_settings`).

mutmut runs each mutant's tests in a fork of one warmed-up process, two at a time:

- each run gets a test database of its own: settings named it after the process that first
  imported them (the fork server), which every fork would otherwise share;
- that database is a copy of a template migrated once per set of migrations (SQLite), not
  migrated again for every mutant: migrating costs seconds of CPU, copying the file
  milliseconds. `make test` does not load this plugin and migrates as before;
- Hypothesis runs without its time limits: the runs are traced, on a shared machine, where a
  slow draw says nothing about the code. A mutant is killed by a wrong answer, not a clock.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

settings.register_profile(
    "mutation", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=50
)
settings.load_profile("mutation")


def pytest_sessionstart(session) -> None:
    from django.conf import settings as django_settings
    from django.db import connections

    test = django_settings.DATABASES["default"].get("TEST")
    if test and test.get("NAME", "").endswith(".sqlite3"):
        name = str(django_settings.LOCAL_DIR / f"test_db_{os.getpid()}.sqlite3")
        test["NAME"] = name
        connections["default"].settings_dict["TEST"]["NAME"] = name
        import django.test.utils

        django.test.utils.setup_databases = _copied_from_template


def _copied_from_template(*, aliases: set[str], **kwargs: Any) -> list[tuple[Any, str, bool]]:
    """`setup_databases` for the SQLite test database: a copy of the migrated template.

    Returns what `teardown_databases` expects, so the copy is removed at the end as the
    migrated database would be.
    """
    from django.db import connections

    (alias,) = aliases
    connection = connections[alias]
    test_name = connection.settings_dict["TEST"]["NAME"]
    shutil.copyfile(_template(connection), test_name)
    old_name = connection.settings_dict["NAME"]
    connection.close()
    connection.settings_dict["NAME"] = test_name
    connections.settings[alias]["NAME"] = test_name
    return [(connection, old_name, True)]


def _template(connection: Any) -> Path:
    """The migrated template of this set of migrations, made once (under a lock: two runs at once)."""
    from django.conf import settings as django_settings

    digest = hashlib.sha256()
    for path in sorted(Path(django_settings.BASE_DIR).glob("avenir_mcp/*/migrations/*.py")):
        digest.update(path.as_posix().encode() + b"\0" + path.read_bytes())
    template = Path(django_settings.LOCAL_DIR) / f"test_db_template_{digest.hexdigest()[:16]}.sqlite3"
    with open(f"{template}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            _migrate_into(connection, template)
    return template


def _migrate_into(connection: Any, template: Path) -> None:
    """Migrate a fresh database, then save it (WAL folded in) as the template."""
    from django.core.management import call_command

    partial = template.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    old_name = connection.settings_dict["NAME"]
    connection.close()
    connection.settings_dict["NAME"] = str(partial)
    try:
        call_command("migrate", verbosity=0, interactive=False, run_syncdb=True)
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            cursor.execute("PRAGMA journal_mode=DELETE")
    finally:
        connection.close()
        connection.settings_dict["NAME"] = old_name
    for suffix in ("-wal", "-shm"):
        Path(f"{partial}{suffix}").unlink(missing_ok=True)
    partial.rename(template)
