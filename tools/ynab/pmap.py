"""An immutable mapping whose updates copy only what they touch.

A plan snapshot holds maps of up to tens of thousands of entities; a delta refresh changes a
handful of them. Copying a 50,000-entry dict on every refresh would cost milliseconds and
double the memory for a moment; `PersistentMap` instead spreads its entries over hash
buckets (plain dicts, never mutated once published) and `evolve` copies the bucket tuple
plus the few buckets that change. Snapshots before and after a refresh share every other
bucket, so both stay valid and cheap.

Iteration order follows the buckets, not insertion: callers that need an order sort, or
use the ordered indexes of `PlanSnapshot`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# Aim for buckets of about this many entries: small enough to copy in microseconds.
_BUCKET_TARGET = 32
# Rebuild with more buckets once they grow this much past the target (amortised, rare).
_BUCKET_LIMIT = _BUCKET_TARGET * 4
_EMPTY: dict = {}


def _width_for(size: int) -> int:
    """Number of buckets (a power of two) for `size` entries."""
    width = 1
    while width * _BUCKET_TARGET < size:
        width *= 2
    return width


class PersistentMap(Mapping[K, V], Generic[K, V]):
    """A read-only mapping; `evolve` returns a new map sharing untouched buckets."""

    __slots__ = ("_buckets", "_len", "_mask")

    def __init__(self, items: Mapping[K, V] | None = None) -> None:
        items = items or {}
        width = _width_for(len(items))
        buckets: list[dict] = [{} for _ in range(width)]
        mask = width - 1
        for key, value in items.items():
            buckets[hash(key) & mask][key] = value
        self._buckets: tuple[dict, ...] = tuple(bucket or _EMPTY for bucket in buckets)
        self._mask = mask
        self._len = len(items)

    def __getitem__(self, key: K) -> V:
        return self._buckets[hash(key) & self._mask][key]

    def get(self, key: K, default: V | None = None) -> V | None:
        return self._buckets[hash(key) & self._mask].get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._buckets[hash(key) & self._mask]

    def __iter__(self) -> Iterator[K]:
        for bucket in self._buckets:
            yield from bucket

    def __len__(self) -> int:
        return self._len

    def values(self) -> Iterator[V]:  # type: ignore[override]  (an iterator is enough here)
        for bucket in self._buckets:
            yield from bucket.values()

    def items(self) -> Iterator[tuple[K, V]]:  # type: ignore[override]
        for bucket in self._buckets:
            yield from bucket.items()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return len(self) == len(other) and all(
            key in other and other[key] == value for key, value in self.items()
        )

    __hash__ = None  # type: ignore[assignment]  (a mapping, compared by content)

    def __repr__(self) -> str:
        return f"PersistentMap({len(self)} entries)"

    def __reduce__(self) -> tuple:
        # Pickled as its entries, never its buckets: a bucket is chosen by hash(key), and
        # string hashes differ from one process to the next.
        return (PersistentMap, (dict(self.items()),))

    def evolve(self, updates: Mapping[K, V] | None = None, removals: Iterable[K] = ()) -> PersistentMap[K, V]:
        """A new map with `updates` set and `removals` gone (absent keys are ignored)."""
        changes = _group_by_bucket(self._mask, updates or {}, removals)
        if not changes:
            return self
        buckets = list(self._buckets)
        size = self._len
        for index, (sets, drops) in changes.items():
            bucket = dict(buckets[index])
            before = len(bucket)
            for key in drops:
                bucket.pop(key, None)
            bucket.update(sets)
            size += len(bucket) - before
            buckets[index] = bucket or _EMPTY
        return self._published(buckets, size)

    def _published(self, buckets: list[dict], size: int) -> PersistentMap[K, V]:
        if size > len(buckets) * _BUCKET_LIMIT or (len(buckets) > 1 and size * 16 < len(buckets)):
            return PersistentMap({key: value for bucket in buckets for key, value in bucket.items()})
        evolved = PersistentMap.__new__(PersistentMap)
        evolved._buckets = tuple(buckets)
        evolved._mask = self._mask
        evolved._len = size
        return evolved


def _group_by_bucket(mask: int, updates: Mapping, removals: Iterable) -> dict[int, tuple[dict, list]]:
    """Changes grouped per bucket index: (keys to set, keys to drop)."""
    changes: dict[int, tuple[dict, list]] = {}
    for key in removals:
        changes.setdefault(hash(key) & mask, ({}, []))[1].append(key)
    for key, value in updates.items():
        changes.setdefault(hash(key) & mask, ({}, []))[0][key] = value
    return changes


EMPTY_MAP: PersistentMap = PersistentMap()
