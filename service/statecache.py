"""What is computed from a stored state, kept per process: legal orders, the mail grids,
the parts of the game and round pages that every viewer of a step sees alike, parsed
submissions. Each kind is a named cache of service.caches.

A player's legal orders are asked for by GET orders, then by the confirmation, status
and results mails of the same step; the grids are the same in every player's results
mail of a step. Each is a pure function of the ruleset at the game's rules revision and
the state, so an entry is keyed by the ruleset, the revision and a digest of the state's
JSON as stored: it is exactly what computing it again from that row gives, and a changed
or damaged row is another key (the database stays the source of truth; nothing secret is
kept). A page part (a grid's SVG and legend, a step's events and roll log, the dice-key
checks up to a step) is keyed by the game, the step and what identifies the step's
content (its state hash and revealed key), so it needs no digest of the state. A
submission's parsed orders (service.submit) are keyed by the state's digest, the seat and
the text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from engine.orders import Order
from service import caches

T = TypeVar("T")


def _orders_held(legal: Mapping[str, list[Order]]) -> int:
    return 1 + sum(map(len, legal.values()))  # an empty view still takes a place


def _characters(parts: Mapping[str, Any] | str) -> int:
    if isinstance(parts, str):
        return len(parts)
    return sum(len(v) for v in parts.values() if isinstance(v, str))


# Each kind's bound, and what an entry weighs where entries differ widely in size (by the
# grid and the army); any other kind holds 128 entries.
# - legal: asked for in every game a process serves; ~240 bytes an order, so ~12 MB.
# - grids: 10 to 80 KB of text a step, asked for only while a step's mails are composed.
# - page: 2 to 60 KB of HTML a part, for the games being watched.
BOUNDS: dict[str, tuple[int, Callable[[Any], int] | None]] = {
    "legal": (50_000, _orders_held), "grids": (3_000_000, _characters),
    "page": (512, None), "parsed": (2048, None)}
OTHER_BOUND = 128


def cache(kind: str) -> caches.Cache[tuple[Any, ...], Any]:
    """The named cache of a kind."""
    bound, weigh = BOUNDS.get(kind, (OTHER_BOUND, None))
    return caches.named(kind, bound, weigh)


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
    return cast(T, cache(kind).get(key, compute))


def legal_orders(ruleset_id: str, revision: int, data: Mapping[str, Any], player: str,
                 compute: Callable[[], dict[str, list[Order]]]) -> dict[str, list[Order]]:
    """A player's legal orders in this state (fresh lists each call; orders are frozen)."""
    found = cached("legal", ruleset_id, revision, data, player, compute)
    return {unit: list(lines) for unit, lines in found.items()}
