"""What a test run may not leave in the checkout: new or changed files.

Tests write to folders of their own (tmp_path, the run's data folder, the run's test database),
never into the checkout, where a `make run` may be serving (a touched code file restarts it) and
`db.sqlite3` is the developer's database. `files_in` lists the checkout's files with their
modification time and size, leaving out what is not a test's doing: git's and the venv's
folders, bytecode, coverage.py's data files (`make test`) and the tools' caches.
`left_behind(before, after)` names what is new or changed, except what a `make run` serving from
the same checkout changes meanwhile (`db.sqlite3` and its side files, `.local/plans/`): those
count only when the run created the first of them.
`copy_of_project(folder)` puts the project's code outside the checkout, for a process that needs a
checkout of its own (a `.env` beside its manage.py, a code file touched to reload).
"""

from __future__ import annotations

import os
import shutil
from fnmatch import fnmatch
from pathlib import Path

from django.conf import settings

Files = dict[str, tuple[int, int]]  # path relative to the checkout: (mtime in ns, size)

NOT_THE_TESTS = {
    ".git",
    ".venv",
    "__pycache__",
    ".ruff_cache",
    ".pytest_cache",
    "mutants",
    "htmlcov",
}
COVERAGE_DATA = ".coverage*"
DEV_SERVER = ("db.sqlite3*", ".local/plans/*")


def files_in(root: Path) -> Files:
    files: Files = {}
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [name for name in subfolders if name not in NOT_THE_TESTS]
        for name in names:
            if fnmatch(name, COVERAGE_DATA):
                continue
            path = Path(folder, name)
            try:
                stat = path.stat()
            except FileNotFoundError:  # gone since it was listed (a test database's side file)
                continue
            files[path.relative_to(root).as_posix()] = (stat.st_mtime_ns, stat.st_size)
    return files


def left_behind(before: Files, after: Files) -> list[str]:
    """`new: <path>` and `changed: <path>`, sorted by path."""
    server_was_there = {pattern for pattern in DEV_SERVER if any(fnmatch(path, pattern) for path in before)}
    found = []
    for path, seen in sorted(after.items()):
        if path in before and before[path] == seen:
            continue
        if any(fnmatch(path, pattern) for pattern in server_was_there):
            continue
        found.append(f"{'changed' if path in before else 'new'}: {path}")
    return found


PROJECT = ("avenir_mcp",)  # the checkout's package (but the tests), which the reloader watches


def copy_of_project(folder: Path) -> Path:
    """The project's code (its packages, manage.py, pyproject.toml) copied into `folder`/project.

    A process started there is not measured by coverage.py (its files are not the checkout's)."""
    copy = folder / "project"
    for package in PROJECT:
        shutil.copytree(
            settings.BASE_DIR / package, copy / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    for name in ("manage.py", "pyproject.toml"):
        shutil.copy2(settings.BASE_DIR / name, copy / name)
    return copy
