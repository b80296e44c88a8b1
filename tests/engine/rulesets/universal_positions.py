"""Positions and resolution helpers for the `universal` rulebook tests.

Positions are written as lines "UNIT SQUARE [stat=value ...] [types] [token]": A units
are alice's (seat 0), B units bob's (seat 1), C units carol's; stats default to 1/1/5
(a token to 1/0/5). `resolve` parses each player's text and resolves with exactly the
scripted dice, failing if any scripted die is left unrolled.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.contract import Event
from engine.grid import parse_square
from engine.orders import OrderErrors
from engine.registry import find_ruleset
from engine.rulesets.universal.forces import UNIT_TYPES
from engine.rulesets.universal.state import State, Unit
from tests.engine.rulesets.scripted import resolve_scripted

RULES = find_ruleset("universal")
PLAYERS = ["alice", "bob", "carol", "dave"]


def position(spec: str, *, width: int = 8, height: int = 8, round: int = 1,
             terrain: dict[str, str] | None = None, **options: Any) -> State:
    units: dict[str, Unit] = {}
    custom = {t["name"] for t in options.get("unit_types", [])}  # the game's own types
    for line in spec.strip().splitlines():
        uid, square, *rest = line.split()
        side = PLAYERS[ord(uid[0]) - ord("A")]
        stats = {"ep": 1, "pw": 1, "d": 5}
        types: list[str] = []
        token = "token" in rest
        if token:
            stats = {"ep": 1, "pw": 0, "d": 5}
        for word in rest:
            if "=" in word:
                key, value = word.split("=")
                stats[key] = int(value)
            elif word in UNIT_TYPES or word in custom:
                types.append(word)
        units[uid] = Unit(uid, side, parse_square(square), stats["ep"], stats["ep"], stats["pw"],
                          stats["d"], tuple(types), token)
    seats = PLAYERS[:max(2, max(ord(u[0]) - ord("A") for u in units) + 1)]
    numbers = {s: 1 + max([int(u[1:]) for u in units if PLAYERS[ord(u[0]) - 65] == s] or [0])
               for s in seats}
    state = State(RULES.options({"width": width, "height": height, **options}), seats, round,
                  units, numbers, terrain=dict(terrain or {}))
    return RULES.load(RULES.dump(state))


def resolve(state: State, faces: list[int], **texts: str) -> tuple[State, list[Event]]:
    """Parse each player's text against the state and resolve with exactly these dice."""
    result = resolve_scripted(RULES, state, texts, faces)
    return result.state, result.events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def first(events: list[Event], kind: str) -> dict[str, Any]:
    return next(e.data for e in events if e.kind == kind)


def refused(state: State, player: str, text: str) -> list[tuple[int, str]]:
    with pytest.raises(OrderErrors) as info:
        RULES.parse_orders(state, player, text)
    return [(e.line, e.message) for e in info.value.errors]
