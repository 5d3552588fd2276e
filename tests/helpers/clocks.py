"""A clock a test moves by hand: time passes only when the test says so, however slow the machine."""

from __future__ import annotations

from datetime import UTC, datetime


class FakeClock:
    """A callable clock (seconds, as `time.monotonic` or `time.time` return) standing at `now`
    until the test moves it (`clock.now += 5`)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class SyncClock(FakeClock):
    """The two clocks of `ynab_client.clock` in one, moved together: called, the monotonic one
    (`now`); `wall()`, the same instant on the wall clock (`epoch` + `now`, POSIX seconds)."""

    def __init__(self, epoch: float) -> None:
        super().__init__()
        self.epoch = epoch

    def wall(self) -> float:
        return self.epoch + self.now

    def wall_time(self) -> datetime:
        """This instant on the wall clock, in UTC: the `as_of` of a sync sent now."""
        return datetime.fromtimestamp(self.wall(), UTC)

    def as_of(self) -> str:
        """The `as_of` a read publishes for a sync sent now: UTC, cut to the second."""
        return self.wall_time().strftime("%Y-%m-%dT%H:%M:%SZ")
