"""A pytest plugin for `make mutation` (`-p tests.mutation_settings`).

mutmut runs each mutant's tests in a fork of one warmed-up process, two at a time:

- each run gets a test database of its own: settings named it after the process that first
  imported them (the fork server), which every fork would otherwise share;
- Hypothesis runs without its time limits: the runs are traced, on a shared machine, where a
  slow draw says nothing about the code. A mutant is killed by a wrong answer, not a clock.
"""

from __future__ import annotations

import os

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
