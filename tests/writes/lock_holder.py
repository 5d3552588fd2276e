"""Another service process holding a plan's write lock until told to let go.

    python -m tests.writes.lock_holder PLAN_ID

Run with the test run's DATABASE_URL: it takes the plan's write lock (`oplog.plan_lock`) as a
write of its own would, prints `held`, and keeps it (renewing it) until a line `release`
arrives on its standard input; then it prints `released` and exits. A test may also kill it.
"""

from __future__ import annotations

import os
import sys

import anyio
import django


async def hold(plan_id: str) -> None:
    from avenir_mcp.oplog import plan_lock

    async with plan_lock.held(plan_id):
        print("held", flush=True)
        await anyio.to_thread.run_sync(sys.stdin.readline)
    print("released", flush=True)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_mcp.avenir_site.settings")
    django.setup()
    anyio.run(hold, sys.argv[1])


if __name__ == "__main__":
    main()
