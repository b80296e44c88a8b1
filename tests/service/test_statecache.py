"""service.statecache: what it keeps is exactly what computing it again gives."""

from __future__ import annotations

from engine.orders import Order
from engine.rulesets.universal.orders import HOLD, MOVE
from service import statecache


def test_the_same_state_json_computes_once_and_hands_out_copies() -> None:
    statecache.clear()
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
    statecache.clear()
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
    statecache.clear()

    def fail() -> str:
        raise ValueError("does not load")

    for _ in range(2):
        try:
            statecache.cached("k", "universal", 1, {"x": 1}, "", fail)
        except ValueError:
            pass
        else:
            raise AssertionError("the failure was cached")
    for i in range(statecache.SIZE + 10):
        statecache.cached("k", "universal", 1, {"i": i}, "", lambda: "v")
    assert len(statecache._entries["k"]) == statecache.SIZE


def test_each_kind_has_its_own_bound_so_grids_do_not_evict_the_working_set_of_legal_orders() -> None:
    statecache.clear()
    calls: list[int] = []
    for i in range(600):  # the legal orders of 600 games' seats: all kept
        statecache.legal_orders("universal", 1, {"game": i}, "alice", lambda i=i: calls.append(i) or {})
    for i in range(statecache.SIZES["grids"] + 50):
        statecache.cached("grids", "universal", 1, {"grid": i}, "", lambda: "g")
    for i in range(600):
        statecache.legal_orders("universal", 1, {"game": i}, "alice", lambda i=i: calls.append(i) or {})
    assert calls == list(range(600))  # computed once each
    assert len(statecache._entries["grids"]) == statecache.SIZES["grids"]


def test_legal_orders_are_bounded_by_the_orders_held_too() -> None:
    statecache.clear()
    _weigh, most = statecache.WEIGHTS["legal"]
    per_view = 1000
    view = {"A1": [HOLD.order("A1")] * per_view}
    kept = most // per_view
    for i in range(kept + 5):  # far fewer views than SIZES["legal"], but too many orders
        statecache.legal_orders("universal", 1, {"game": i}, "alice", lambda: view)
    assert len(statecache._entries["legal"]) == kept
    assert statecache._totals["legal"] == kept * per_view
    calls: list[int] = []
    statecache.legal_orders("universal", 1, {"game": 0}, "alice", lambda: calls.append(0) or view)
    statecache.legal_orders("universal", 1, {"game": kept + 4}, "alice", lambda: calls.append(1) or view)
    assert calls == [0]  # the oldest was evicted, the newest kept
    statecache.clear()
    assert not statecache._totals


def test_grids_are_bounded_by_the_characters_held_too() -> None:
    """A grids entry is 10 to 80 KB of text: the kind keeps at most WEIGHTS' characters,
    dropping the oldest steps' grids first."""
    statecache.clear()
    _weigh, most = statecache.WEIGHTS["grids"]
    parts = {"grid_text": "." * (most // 10), "grid_html": ""}
    for i in range(12):
        statecache.cached_by("grids", ("universal", bytes([i]), ""), lambda: parts)
    assert [key[1] for key in statecache._entries["grids"]] == [bytes([i]) for i in range(2, 12)]
    assert statecache._totals["grids"] == 10 * (most // 10)
    statecache.clear()
