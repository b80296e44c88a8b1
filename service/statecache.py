"""What is computed from a stored state, kept per process: legal orders, the mail grids,
the parts of the game and round pages that every viewer of a step sees alike.

A player's legal orders are asked for by GET orders, then by the confirmation, status
and results mails of the same step; the grids are the same in every player's results
mail of a step. Each is a pure function of the ruleset at the game's rules revision and
the state, so an entry is keyed by the ruleset, the revision and a digest of the state's
JSON as stored: it is exactly what
computing it again from that row gives, and a changed or damaged row is another key
(the database stays the source of truth; nothing secret is kept). An LRU per kind bounds
the memory: legal orders are asked for in every game a process serves, so they get room
for the working set of a busy process (2,048 seats' views), but their size depends on the
grid and the army (~8 KB as Python objects for universal 2×8, ~30 KB on its default grid:
~240 bytes an order), so they are bounded by the orders held too (WEIGHTS: 50,000 orders,
~12 MB; in-process, 20 universal games held 1,512 views, 43 MB, after 40 rounds; at twice
this bound a mail worker of the full bench still peaked at 151 MB); a grids
entry is 10 to 80 KB and asked for only while a step's mail is composed, so 128 do, and
at most 3 M characters (WEIGHTS).
A page part (a grid's SVG and legend, a step's events and roll log, the dice-key checks
up to a step: 2 to 60 KB of HTML) is keyed by the game, the step and what identifies the
step's content (its state hash and revealed key), so it needs no digest of the state; 512
of them (at most ~30 MB) cover the games being watched. A submission's parsed orders
(service.submit: a few orders, keyed by the state's digest, the seat and the text) get
room for 2,048 texts. A lock makes it safe for threaded servers.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from engine.orders import Order

T = TypeVar("T")
SIZES = {"legal": 2048, "grids": 128, "page": 512, "parsed": 2048}  # entries per kind
SIZE = 128  # any other kind


def _orders_held(legal: Mapping[str, list[Order]]) -> int:
    return sum(map(len, legal.values()))


def _characters(parts: Mapping[str, Any] | str) -> int:
    if isinstance(parts, str):
        return len(parts)
    return sum(len(v) for v in parts.values() if isinstance(v, str))


# Kinds whose entries differ widely in size: what an entry weighs, and the most a kind holds.
# A grids entry is 10 to 80 KB of text by the grid's size and the round's arrows: 3 M
# characters keep dozens of steps' grids, more than the mails composed at once need.
WEIGHTS: dict[str, tuple[Callable[[Any], int], int]] = {"legal": (_orders_held, 50_000),
                                                         "grids": (_characters, 3_000_000)}

_entries: dict[str, OrderedDict[tuple[Any, ...], Any]] = {}
_weights: dict[str, dict[tuple[Any, ...], int]] = {}  # kind: {key: weight}, for WEIGHTS' kinds
_totals: dict[str, int] = {}  # kind: the sum of its weights
_lock = threading.Lock()


def digest(data: Mapping[str, Any]) -> bytes:
    """The state's JSON as stored (key order kept), digested."""
    return hashlib.blake2b(json.dumps(data, separators=(",", ":")).encode(), digest_size=20).digest()


def cached(kind: str, ruleset: str, revision: int, data: Mapping[str, Any], arg: str,
           compute: Callable[[], T]) -> T:
    """compute(), or what it gave before for the same kind, ruleset, revision, state JSON
    and argument.

    The caller must not change what it gets (copy it first)."""
    return cached_by(kind, (ruleset, revision, digest(data), arg), compute)


def cached_by(kind: str, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """compute(), or what it gave before for the same kind and key (which must name
    everything the value depends on)."""
    with _lock:
        entries = _entries.setdefault(kind, OrderedDict())
        if key in entries:
            entries.move_to_end(key)
            return cast(T, entries[key])
    value = compute()  # outside the lock; an exception caches nothing
    weigh, most = WEIGHTS.get(kind, (None, 0))
    with _lock:
        entries[key] = value
        if weigh is None:
            while len(entries) > SIZES.get(kind, SIZE):
                entries.popitem(last=False)
            return value
        weights = _weights.setdefault(kind, {})
        weight = weigh(value)
        _totals[kind] = _totals.get(kind, 0) - weights.get(key, 0) + weight
        weights[key] = weight
        while len(entries) > 1 and (len(entries) > SIZES.get(kind, SIZE) or _totals[kind] > most):
            _totals[kind] -= weights.pop(entries.popitem(last=False)[0])
    return value


def legal_orders(ruleset_id: str, revision: int, data: Mapping[str, Any], player: str,
                 compute: Callable[[], dict[str, list[Order]]]) -> dict[str, list[Order]]:
    """A player's legal orders in this state (fresh lists each call; orders are frozen)."""
    found = cached("legal", ruleset_id, revision, data, player, compute)
    return {unit: list(lines) for unit, lines in found.items()}


def clear() -> None:
    with _lock:
        _entries.clear()
        _weights.clear()
        _totals.clear()
