"""The one cache facility: named, bounded LRUs with stats and one way to empty them all."""

from __future__ import annotations

import contextlib
import functools
import threading

from service import caches


def test_a_cache_keeps_what_it_made_and_counts_hits_and_misses() -> None:
    cache = caches.Cache[str, int]("t-basic", 4)
    made: list[str] = []

    def make(key: str) -> int:
        made.append(key)
        return len(key)

    assert cache.get("ab", lambda: make("ab")) == 2
    assert cache.get("ab", lambda: make("ab")) == 2
    assert made == ["ab"]
    assert cache.stats() == caches.CacheStats("t-basic", 1, 1, 4, hits=1, misses=1)


def test_the_least_recently_used_entry_goes_first() -> None:
    cache = caches.Cache[int, int]("t-lru", 2)
    cache.get(1, lambda: 1)
    cache.get(2, lambda: 2)
    cache.get(1, lambda: 1)  # 1 is now the most recent
    cache.get(3, lambda: 3)
    assert 1 in cache and 3 in cache and 2 not in cache


def test_a_weighted_cache_is_bounded_by_the_weight_it_holds() -> None:
    cache = caches.Cache[str, str]("t-weight", 10, weigh=len)
    cache.get("a", lambda: "xxxx")
    cache.get("b", lambda: "yyyy")
    cache.get("c", lambda: "zzzz")  # 12 > 10: the oldest goes
    assert "a" not in cache and "b" in cache and "c" in cache
    assert cache.stats().weight == 8


def test_a_value_heavier_than_the_whole_cache_is_not_kept_and_evicts_nothing() -> None:
    cache = caches.Cache[str, str]("t-heavy", 10, weigh=len)
    cache.get("a", lambda: "xx")
    assert cache.get("big", lambda: "x" * 11) == "x" * 11
    assert "big" not in cache and "a" in cache


def test_an_error_while_making_keeps_nothing() -> None:
    cache = caches.Cache[str, int]("t-error", 4)

    def fail() -> int:
        raise RuntimeError("no")

    with contextlib.suppress(RuntimeError):
        cache.get("k", fail)
    assert "k" not in cache
    assert cache.get("k", lambda: 5) == 5


def test_named_caches_are_one_per_name_and_cleared_together() -> None:
    first: caches.Cache[str, int] = caches.named("t-named", 8)
    assert caches.named("t-named", 8) is first
    first.get("k", lambda: 1)
    assert caches.stats()["t-named"].entries == 1
    caches.clear_all()
    assert caches.stats()["t-named"].entries == 0


def test_threads_share_a_cache_safely() -> None:
    cache = caches.Cache[int, int]("t-threads", 64)

    def work(offset: int) -> None:
        for i in range(2000):
            key = (i + offset) % 100
            assert cache.get(key, functools.partial(int, key * 2)) == key * 2

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.stats().entries == 64
