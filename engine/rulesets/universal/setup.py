"""Placing the terrain and the armies: each side starts on its own edge (seat 0 bottom,
1 top, 2 left, 3 right), centred, filling the next line inwards when an edge is full (a
wall square is passed over).

Terrain (docs/rulesets/universal.md: "You decide on how big arena of battle is"; option `terrain`) keeps
the two lines along every edge clear, where the armies stand:
- `ruins`: a fixed layout for the grid's size: two wall pillars, two squares tall, a
  quarter of the way in from each side, and a 2 x 2 rough patch in the middle;
- `scattered`: one wall and one rough square per 24 squares of the grid, each on a free
  square of the inner area drawn by the setup dice (labelled, so the record shows them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.contract import ForceError
from engine.dice import Dice
from engine.grid import Square, square_name
from engine.zones import edge_zone

from .forces import parse_force
from .house import type_table
from .movement import ROUGH, WALL
from .state import State, Unit

EDGE_CLEAR = 2  # lines along each edge kept free of terrain


def ruins(width: int, height: int) -> dict[Square, str]:
    """The `ruins` layout for a width x height grid (empty when the grid has no inner area)."""
    if width < 2 * EDGE_CLEAR + 2 or height < 2 * EDGE_CLEAR + 2:
        return {}
    mid_r, mid_c = height // 2, width // 2
    out: dict[Square, str] = {}
    for col in sorted({max(EDGE_CLEAR, width // 4), min(width - 1 - EDGE_CLEAR, width - 1 - width // 4)}):
        for row in (mid_r - 1, mid_r):
            out[Square(col, row)] = WALL
    for col in (mid_c - 1, mid_c):
        for row in (mid_r - 1, mid_r):
            out.setdefault(Square(col, row), ROUGH)
    return out


def scattered(width: int, height: int, dice: Dice) -> dict[Square, str]:
    """Walls and rough squares on the inner area, drawn one at a time by the dice."""
    inner = [Square(c, r) for r in range(EDGE_CLEAR, height - EDGE_CLEAR)
             for c in range(EDGE_CLEAR, width - EDGE_CLEAR)]
    count = width * height // 24
    out: dict[Square, str] = {}
    for kind in (WALL, ROUGH):
        for n in range(1, count + 1):
            free = [sq for sq in inner if sq not in out]
            if not free:
                return out
            sq = free[dice.roll(len(free), f"terrain: {kind} square {n} of {count}") - 1]
            out[sq] = kind
    return out


def place(players: Sequence[str], forces: Mapping[str, Mapping[str, Any]],
          options: Mapping[str, Any], dice: Dice | None = None) -> State:
    width, height = int(options["width"]), int(options["height"])
    state = State(options=dict(options), seats=list(players), round=1, units={}, next_number={})
    layout = str(options.get("terrain", "open"))
    if layout == "ruins":
        terrain = ruins(width, height)
    elif layout == "scattered":
        if dice is None:
            raise ValueError("scattered terrain is placed by the setup dice")
        terrain = scattered(width, height, dice)
    else:
        terrain = {}
    state.terrain = {square_name(sq): kind for sq, kind in terrain.items()}
    taken: set[Square] = {sq for sq, kind in terrain.items() if kind == WALL}
    custom = type_table(options)
    for seat, player in enumerate(players):
        specs, reasons = parse_force(forces[player], custom)
        if reasons:
            raise ForceError(player, reasons)
        free = (sq for sq in edge_zone(seat, width, height) if sq not in taken)
        letter = state.letter(player)
        for number, spec in enumerate(specs, start=1):
            sq = next(free, None)
            if sq is None:
                raise ForceError(player, [f"{len(specs)} units do not fit on a {width}x{height} grid"])
            taken.add(sq)
            uid = f"{letter}{number}"
            ep = spec.ep + spec.extra_ep  # a custom type's endurance is part of its stat line
            state.units[uid] = Unit(uid, player, sq, ep, ep, spec.pw, spec.d, spec.types,
                                    False, spec.name)
        state.next_number[player] = len(specs) + 1
    return state
