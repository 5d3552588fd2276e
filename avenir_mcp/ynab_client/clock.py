"""The clocks of the plan cache: the monotonic one its freshness window is measured on
(`ynab_client.cache`), with the write marks that end a window (`ynab_client.write_marks`), and the
wall clock that dates a sync for the people reading its figures (a snapshot's `as_of`).

Everything reads `clock.monotonic()` and `clock.wall()` through this module, never a name
imported from it, so a test sets a clock of its own here (the `freshness_clock` fixture sets
both) and moves time on instead of waiting for it to pass.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

monotonic = time.monotonic
wall = time.time


def wall_at(moment: float) -> datetime:
    """The UTC time at which `monotonic()` read `moment` (a moment just past, such as when a
    request was sent): now on the wall clock, less the time the monotonic clock says has gone."""
    return datetime.fromtimestamp(wall() - (monotonic() - moment), UTC)
