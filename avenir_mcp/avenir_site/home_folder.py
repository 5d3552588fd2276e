"""Where avenir-mcp keeps its state: a checkout's `.local/`, or an installed copy's home folder.

- A checkout (manage.py beside the packages): `.local/` holds the generated secret key and the
  plan store, `db.sqlite3` sits beside manage.py, as `make run` and `make test` have always had.
- An installed copy (`pip install`, `uvx`: the packages in site-packages, no manage.py): one
  folder, the platform's user data folder (`~/.local/share/avenir-mcp` on Linux,
  `~/Library/Application Support/avenir-mcp` on macOS), found by platformdirs.
- `AVENIR_MCP_HOME`, when given, is that one folder in either case.

The folder holds the SQLite database (unless DATABASE_URL names another), the plan store
(`plans/`, unless AVENIR_MCP_DATA_DIR names another), the secret key (`secret_key`, made at the
first start, 0600) and the lock that orders migrations at start (avenir_mcp/avenir_site/cli.py).

Settings may sit in a `.env` file (`env_file`): a checkout's beside manage.py, as always; an
installed copy's in its home folder, the one place it owns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "avenir-mcp"


@dataclass(frozen=True)
class Home:
    folder: Path  # the secret key, the plan store, the start lock (0700)
    database: Path  # the SQLite file used when DATABASE_URL is not given


def is_checkout(base_dir: Path) -> bool:
    """True when the packages run from a clone of the repository rather than an installed copy."""
    return (base_dir / "manage.py").is_file()


def env_file(base_dir: Path, given: str) -> Path:
    """The `.env` the settings read for packages found in `base_dir` (real environment variables
    win over it); `given` is AVENIR_MCP_HOME from the environment (blank: unset)."""
    if is_checkout(base_dir):
        return base_dir / ".env"
    return home_of(base_dir, given).folder / ".env"


def home_of(base_dir: Path, given: str) -> Home:
    """The folders for packages found in `base_dir`; `given` is AVENIR_MCP_HOME (blank: unset)."""
    if given:
        folder = Path(given).expanduser().resolve()
        return Home(folder, folder / "db.sqlite3")
    if is_checkout(base_dir):
        return Home(base_dir / ".local", base_dir / "db.sqlite3")
    folder = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    return Home(folder, folder / "db.sqlite3")
