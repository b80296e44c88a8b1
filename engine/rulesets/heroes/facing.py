"""Facing and reach: which squares a figure can strike, and which squares are its back.

Seed: "Close Combat Heroes can attack up to one space away any square in front of them.
Ranged Heroes can attack like Close Combat Heroes in addition to being able to attack an
enemy directly in front of them 2 spaces away." docs/rulesets/heroes.md reads "in front" as the 3
squares ahead (the facing and its two neighbours), plus the same space; the back is the
3 squares behind.
"""

from __future__ import annotations

from functools import cache

from engine.grid import DIRECTIONS, Square, direction_between

CLOCKWISE = tuple(DIRECTIONS)  # n, ne, e, se, s, sw, w, nw


def _step(sq: Square, direction: str, times: int = 1) -> Square:
    dc, dr = DIRECTIONS[direction]
    return Square(sq.col + dc * times, sq.row + dr * times)


def _turn(direction: str, eighths: int) -> str:
    return CLOCKWISE[(CLOCKWISE.index(direction) + eighths) % 8]


def front_squares(sq: Square, facing: str) -> list[Square]:
    return [_step(sq, _turn(facing, k)) for k in (-1, 0, 1)]


def back_squares(sq: Square, facing: str) -> list[Square]:
    return [_step(sq, _turn(facing, k)) for k in (3, 4, 5)]


@cache
def reach(sq: Square, facing: str, ranged: bool) -> frozenset[Square]:
    """Squares a figure at sq facing `facing` can attack: same space, 3 in front, and for a
    ranged figure the square 2 straight ahead. Cached: asked thousands of times a round."""
    out = {sq, *front_squares(sq, facing)}
    if ranged:
        out.add(_step(sq, facing, 2))
    return frozenset(out)


def is_ranged_shot(sq: Square, facing: str, target: Square) -> bool:
    """Whether the target is the square 2 ahead (only a ranged attack reaches it)."""
    return target == _step(sq, facing, 2)


def attacks_back(attacker: Square, target: Square, target_facing: str) -> bool:
    """"Attacking an opponent's back: +1": the attacker stands on one of its back squares."""
    return attacker in back_squares(target, target_facing)


def facing_towards(frm: Square, to: Square, current: str) -> str:
    return direction_between(frm, to) or current
