"""A clock a test moves by hand: time passes only when the test says so, however slow the machine."""

from __future__ import annotations


class FakeClock:
    """A callable clock (seconds, as `time.monotonic` or `time.time` return) standing at `now`
    until the test moves it (`clock.now += 5`)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
