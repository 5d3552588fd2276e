"""The monotonic clock the plan cache's freshness window is measured on (`ynab_client.cache`), and
the write marks that end a window with it (`ynab_client.client`): one clock, so the two compare.

Both read `clock.monotonic()` through this module, never a name imported from it, so a test sets
a clock of its own here and moves time on instead of waiting for it to pass.
"""

from __future__ import annotations

import time

monotonic = time.monotonic
