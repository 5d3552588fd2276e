"""Fixtures every write tool's tests share: the live sandbox, a whole pacing budget, no faults left.

The write tools use the process's YNAB client, pointed at the live sandbox by `live_service`.
The path matrix and the helpers are in `tests.writes.harness`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import faults


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_faults_left(live_service) -> Iterator[None]:
    """A fault a test injected and did not use up never reaches the next test."""
    faults.clear_faults()
    yield
    faults.clear_faults()
