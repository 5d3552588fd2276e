"""Ordered one-to-many indexes (key → sorted tuple of entities), updated copy-on-write.

An index is a `PersistentMap` from a key (an account id, a month…) to a tuple of entities
kept sorted by an order function. `update_index` takes the entities leaving and entering
each key and rewrites only those keys' tuples: a few bisections when a key changes a
little (a refresh), one sort when it changes a lot (a cold load). Entities are matched by
their `id`, so an updated entity replaces its old self.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

from tools.ynab.parse import Changes
from tools.ynab.pmap import PersistentMap


class HasId(Protocol):
    @property
    def id(self) -> str: ...


K = TypeVar("K", bound=Hashable)
T = TypeVar("T", bound=HasId)
Order = Callable[[Any], Any]

# Past this share of a tuple changing, one rebuild beats many bisections.
_FEW_CHANGES = 16


def update_index(
    index: PersistentMap[K, tuple[T, ...]],
    leaving: Iterable[tuple[K, T]],
    entering: Iterable[tuple[K, T]],
    order: Order,
) -> PersistentMap[K, tuple[T, ...]]:
    """`index` with each (key, old entity) removed and each (key, new entity) added.

    Keys left empty disappear. An entity must appear at most once per key on each side.
    """
    grouped: dict[K, tuple[list[T], list[T]]] = {}
    for key, entity in leaving:
        grouped.setdefault(key, ([], []))[0].append(entity)
    for key, entity in entering:
        grouped.setdefault(key, ([], []))[1].append(entity)
    updates: dict[K, tuple[T, ...]] = {}
    emptied: list[K] = []
    for key, (gone, added) in grouped.items():
        entries = _rewritten(index.get(key, ()), gone, added, order)
        if entries:
            updates[key] = entries
        else:
            emptied.append(key)
    return index.evolve(updates, emptied)


def _rewritten(entries: tuple[T, ...], gone: list[T], added: list[T], order: Order) -> tuple[T, ...]:
    if len(gone) + len(added) > max(_FEW_CHANGES, len(entries) // 8):
        gone_ids = {entity.id for entity in gone}
        kept = [entity for entity in entries if entity.id not in gone_ids]
        return tuple(sorted(kept + added, key=order))
    working = list(entries)
    for entity in gone:
        _remove(working, entity, order)
    for entity in added:
        insort(working, entity, key=order)
    return tuple(working)


def _remove(working: list[T], entity: T, order: Order) -> None:
    """Remove the entry with `entity`'s id, found by bisection on its (old) order key."""
    at = bisect_left(working, order(entity), key=order)
    if at < len(working) and working[at].id == entity.id:
        del working[at]
        return
    for position, entry in enumerate(working):  # not where its order says: fall back to a scan
        if entry.id == entity.id:
            del working[position]
            return


def evolved(entities: PersistentMap, changes: Changes) -> PersistentMap:
    """`entities` (by id) with a delta's upserts set and its deletions dropped."""
    return entities.evolve({entity.id: entity for entity in changes.upserts}, changes.deleted_ids)


def present(entities: PersistentMap, ids: Iterable[str]) -> Iterator:
    """The entities among `ids` that `entities` holds, each once."""
    for entity_id in dict.fromkeys(ids):
        entity = entities.get(entity_id)
        if entity is not None:
            yield entity
