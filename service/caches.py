"""What a process keeps of values it computes again and again: one facility, named caches.

Every cached value is a pure function of its key (a state's digest, a step's hash, a game and
step number), so the database stays the source of truth and a changed row is another key;
losing an entry costs only the time to compute it again. Each cache is an LRU (cachetools)
bounded by its entries or, where entries differ widely in size, by their total weight, and
guarded by its own lock so a threaded web server shares it. `stats()` says what each holds;
`clear_all()` empties them all (tests, benchmarks, a process that wants its memory back).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from cachetools import LRUCache

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True)
class CacheStats:
    name: str
    entries: int
    weight: int  # the sum of the entries' weights (their count where unweighted)
    bound: int  # the most weight it holds
    hits: int
    misses: int


class Cache(Generic[K, V]):
    """A named LRU: `get(key, make)` returns the kept value or keeps what `make()` gives."""

    def __init__(self, name: str, bound: int, weigh: Callable[[V], int] | None = None) -> None:
        self.name = name
        self._lru: LRUCache[K, V] = LRUCache(bound, getsizeof=weigh)
        self._weigh = weigh
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    def get(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            try:
                value = self._lru[key]
            except KeyError:
                self._misses += 1
            else:
                self._hits += 1
                return value
        value = make()  # outside the lock: a slow computation blocks no other key; an error keeps nothing
        self.put(key, value)
        return value

    def put(self, key: K, value: V) -> None:
        if self._weigh is not None and self._weigh(value) > self._lru.maxsize:
            return  # heavier than the whole cache: kept nowhere rather than emptying it
        with self._lock:
            self._lru[key] = value

    def __contains__(self, key: object) -> bool:
        """Whether the key is kept (without making it the most recently used)."""
        with self._lock:
            return key in self._lru

    def clear(self) -> None:
        with self._lock:
            self._lru.clear()
            self._hits = self._misses = 0

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self.name, len(self._lru), int(self._lru.currsize), int(self._lru.maxsize),
                              self._hits, self._misses)


_caches: dict[str, Cache[object, object]] = {}
_registry_lock = threading.Lock()


def named(name: str, bound: int, weigh: Callable[[V], int] | None = None) -> Cache[K, V]:
    """The process's cache of that name, made on first use with this bound and weight."""
    with _registry_lock:
        found = _caches.get(name)
        if found is None:
            found = _caches[name] = Cache(name, bound, weigh)  # type: ignore[arg-type]
    return found  # type: ignore[return-value]


def stats() -> dict[str, CacheStats]:
    with _registry_lock:
        caches = list(_caches.values())
    return {c.name: c.stats() for c in caches}


def clear_all() -> None:
    with _registry_lock:
        caches = list(_caches.values())
    for c in caches:
        c.clear()
