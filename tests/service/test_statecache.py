"""service.statecache: what it keeps is exactly what computing it again gives."""

from __future__ import annotations

from engine.orders import Order
from engine.rulesets.universal.orders import HOLD, MOVE
from service import caches, statecache


def test_the_same_state_json_computes_once_and_hands_out_copies() -> None:
    caches.clear_all()
    calls: list[str] = []

    def compute() -> dict[str, list[Order]]:
        calls.append("x")
        return {"A1": [HOLD.order("A1"), MOVE.order("A1", "b2")]}

    state = {"units": [{"id": "A1", "at": "a1"}], "round": 3}
    first = statecache.legal_orders("universal", 1, state, "alice", compute)
    first["A1"].append(MOVE.order("A1", "c3"))  # changed by the caller
    again = statecache.legal_orders("universal", 1, dict(state), "alice", compute)
    assert again == {"A1": [HOLD.order("A1"), MOVE.order("A1", "b2")]} and calls == ["x"]


def test_another_state_player_ruleset_revision_or_key_order_is_another_entry() -> None:
    caches.clear_all()
    calls: list[str] = []

    def compute() -> str:
        calls.append("x")
        return "v"

    state = {"a": 1, "b": 2}
    for ruleset, revision, data, arg in [
            ("universal", 1, state, "p"), ("universal", 1, {"a": 1, "b": 3}, "p"),
            ("jep1", 1, state, "p"), ("universal", 1, state, "q"),
            ("universal", 1, {"b": 2, "a": 1}, "p"), ("universal", 2, state, "p")]:
        statecache.cached("k", ruleset, revision, data, arg, compute)
    assert len(calls) == 6


def test_a_failure_is_not_kept_and_the_size_is_bounded() -> None:
    caches.clear_all()

    def fail() -> str:
        raise ValueError("does not load")

    for _ in range(2):
        try:
            statecache.cached("k", "universal", 1, {"x": 1}, "", fail)
        except ValueError:
            pass
        else:
            raise AssertionError("the failure was cached")
    for i in range(statecache.OTHER_BOUND + 10):
        statecache.cached("k", "universal", 1, {"i": i}, "", lambda: "v")
    assert caches.stats()["k"].entries == statecache.OTHER_BOUND


def test_each_kind_has_its_own_bound_so_grids_do_not_evict_the_working_set_of_legal_orders() -> None:
    caches.clear_all()
    calls: list[int] = []
    for i in range(600):  # the legal orders of 600 games' seats: all kept
        statecache.legal_orders("universal", 1, {"game": i}, "alice", lambda i=i: calls.append(i) or {})
    most, _weigh = statecache.BOUNDS["grids"]
    for i in range(20):  # more grids than the kind holds
        statecache.cached("grids", "universal", 1, {"grid": i}, "", lambda: "g" * (most // 10))
    for i in range(600):
        statecache.legal_orders("universal", 1, {"game": i}, "alice", lambda i=i: calls.append(i) or {})
    assert calls == list(range(600))  # computed once each
    assert caches.stats()["grids"].entries == 10


def test_legal_orders_are_bounded_by_the_orders_held() -> None:
    caches.clear_all()
    most, _weigh = statecache.BOUNDS["legal"]
    per_view = 999  # and one for the view itself
    view = {"A1": [HOLD.order("A1")] * per_view}
    kept = most // (per_view + 1)
    for i in range(kept + 5):
        statecache.legal_orders("universal", 1, {"game": i}, "alice", lambda: view)
    held = caches.stats()["legal"]
    assert held.entries == kept and held.weight == kept * (per_view + 1)
    calls: list[int] = []
    statecache.legal_orders("universal", 1, {"game": 0}, "alice", lambda: calls.append(0) or view)
    statecache.legal_orders("universal", 1, {"game": kept + 4}, "alice", lambda: calls.append(1) or view)
    assert calls == [0]  # the oldest was evicted, the newest kept
    caches.clear_all()
    assert caches.stats()["legal"].weight == 0


def test_grids_are_bounded_by_the_characters_held() -> None:
    """A grids entry is 10 to 80 KB of text: the kind keeps at most its bound in characters,
    dropping the oldest steps' grids first."""
    caches.clear_all()
    most, _weigh = statecache.BOUNDS["grids"]
    parts = {"grid_text": "." * (most // 10), "grid_html": ""}
    for i in range(12):
        statecache.cached_by("grids", ("universal", bytes([i]), ""), lambda: parts)
    grids = statecache.cache("grids")
    assert [("universal", bytes([i]), "") in grids for i in range(12)] == [False] * 2 + [True] * 10
    assert caches.stats()["grids"].weight == 10 * (most // 10)
    caches.clear_all()
