"""Placing the armies: each side starts on its own edge (seat 0 bottom, 1 top, 2 left,
3 right), centred, filling the next line inwards when an edge is full."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.contract import ForceError
from engine.grid import Square

from .forces import parse_force
from .state import State, Unit


def edge_squares(seat: int, width: int, height: int) -> Iterator[Square]:
    """The seat's edge, line by line inwards, each line from its middle outwards."""
    along, across = (width, height) if seat < 2 else (height, width)
    order = sorted(range(along), key=lambda i: (abs(2 * i - (along - 1)), i))
    for depth in range(across // 2):
        for i in order:
            if seat == 0:
                yield Square(i, depth)
            elif seat == 1:
                yield Square(i, height - 1 - depth)
            elif seat == 2:
                yield Square(depth, i)
            else:
                yield Square(width - 1 - depth, i)


def place(players: Sequence[str], forces: Mapping[str, Mapping[str, Any]],
          options: Mapping[str, Any]) -> State:
    width, height = int(options["width"]), int(options["height"])
    state = State(options=dict(options), seats=list(players), round=1, units={}, next_number={})
    taken: set[Square] = set()
    for seat, player in enumerate(players):
        specs, reasons = parse_force(forces[player])
        if reasons:
            raise ForceError(player, reasons)
        free = (sq for sq in edge_squares(seat, width, height) if sq not in taken)
        letter = state.letter(player)
        for number, spec in enumerate(specs, start=1):
            sq = next(free, None)
            if sq is None:
                raise ForceError(player, [f"{len(specs)} units do not fit on a {width}x{height} grid"])
            taken.add(sq)
            uid = f"{letter}{number}"
            state.units[uid] = Unit(uid, player, sq, spec.ep, spec.ep, spec.pw, spec.d, spec.types,
                                    False, spec.name)
        state.next_number[player] = len(specs) + 1
    return state
