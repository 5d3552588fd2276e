"""The check that a test run leaves the checkout as it found it (tests/helpers/checkout.py, run
by tests/conftest.py when a session ends)."""

from __future__ import annotations

import os

from tests.helpers.checkout import files_in, left_behind


def test_a_new_file_and_a_touched_one_are_named_and_caches_are_not(tmp_path):
    (tmp_path / "avenir_site").mkdir()
    (tmp_path / "avenir_site" / "home.py").write_text("code")
    (tmp_path / "manage.py").write_text("code")
    before = files_in(tmp_path)

    os.utime(tmp_path / "avenir_site" / "home.py", ns=(1, 1))  # touched: a reloader restarts
    (tmp_path / "notes.txt").write_text("left by a test")
    (tmp_path / "avenir_site" / "__pycache__").mkdir()
    (tmp_path / "avenir_site" / "__pycache__" / "home.cpython-311.pyc").write_bytes(b"")
    (tmp_path / ".coverage.host.pid1.x").write_bytes(b"")

    assert left_behind(before, files_in(tmp_path)) == ["changed: avenir_site/home.py", "new: notes.txt"]


def test_the_dev_servers_database_and_plans_count_only_when_the_run_made_them(tmp_path):
    (tmp_path / "manage.py").write_text("code")
    made_by_the_run = files_in(tmp_path)
    (tmp_path / "db.sqlite3").write_bytes(b"a dev database")
    (tmp_path / ".local" / "plans").mkdir(parents=True)
    (tmp_path / ".local" / "plans" / "a.plan").write_bytes(b"a plan")
    served_meanwhile = files_in(tmp_path)
    (tmp_path / "db.sqlite3").write_bytes(b"a dev database, written by make run meanwhile")
    (tmp_path / "db.sqlite3-wal").write_bytes(b"")
    (tmp_path / ".local" / "plans" / "b.plan").write_bytes(b"another plan it stored")

    assert left_behind(made_by_the_run, served_meanwhile) == ["new: .local/plans/a.plan", "new: db.sqlite3"]
    assert left_behind(served_meanwhile, files_in(tmp_path)) == []
