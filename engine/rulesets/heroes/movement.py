"""Movement phase: up to Movement A.P. squares, climbing onto rooftops on the way.

Seed: "Spaces with an "X" on them are rooftops. To climb to a rooftop Roll off. On a Result
+ (E) of 13 or greater you've made it to the roof. If you don't succeed, you stay on the
street. This attempt to get to the rooftop uses 1 Movement A.P."

Our reading: stepping from a street square onto a rooftop square is the climb (1 A.P.,
the roll-off); stepping along rooftops or down to the street is an ordinary step. A failed
climb leaves the hero where it was, and it tries again with its next A.P. Figures may
share squares (the seed's "Attacking on the same space"). The engine finds the path:
fewest steps, then fewest climbs, so a hero never climbs by accident.
"""

from __future__ import annotations

from engine.contract import Event
from engine.dice import Dice
from engine.grid import Square, direction_between, parse_square, square_name
from engine.rulesets.heroes.paths import is_climb, plan
from engine.rulesets.heroes.rolloff import roll_off
from engine.rulesets.heroes.state import Figure, HeroesState

CLIMB_TARGET = 13  # "On a Result + (E) of 13 or greater you've made it to the roof."


def move_order(state: HeroesState, f: Figure, waypoints: list[str], flying: bool, dice: Dice,
               events: list[Event]) -> bool:
    """Carry out a `move` order; True when the figure spent Movement A.P. ("moved")."""
    ap = f.spec.move_ap
    path = plan(state, f.square, [parse_square(a) for a in waypoints], ap, flying)
    if path is None:
        events.append(Event("skip", f"{f.id} move {' '.join(waypoints)}: skipped, no route within "
                            f"{ap} Movement A.P.", {"unit": f.id}))
        return False
    return walk(state, f, path, ap, flying, dice, events) > 0


def walk(state: HeroesState, f: Figure, path: list[Square], ap: int, flying: bool, dice: Dice,
         events: list[Event], climb_modifier: int = 0) -> int:
    """Walk the planned path, rolling each climb; returns the Movement A.P. spent."""
    spent = 0
    walked = [f.square]
    for sq in path:
        while spent < ap and f.square != sq:
            spent += 1
            if not flying and is_climb(state, f.square, sq) and not climb(
                    state, f, sq, dice, events, climb_modifier):
                continue
            f.facing = direction_between(f.square, sq) or f.facing
            f.square = sq
            walked.append(sq)
        if f.square != sq:
            break
    if len(walked) > 1:
        names = [square_name(s) for s in walked]
        state.marks.append({"kind": "move", "squares": names,
                            "side": f.owner if f.kind == "hero" else None})
        events.append(Event("move", f"{f.id} moves {' → '.join(names)}, facing {f.facing}.",
                            {"unit": f.id, "squares": names}))
    return spent


def climb(state: HeroesState, f: Figure, to: Square, dice: Dice, events: list[Event],
          modifier: int = 0) -> bool:
    """One climbing roll-off: Result + E (+ modifier) of 13 or more gets onto the roof."""
    roll = roll_off(dice, f.stat("E"), f"{f.id} climb {square_name(to)}", modifier=modifier,
                    policy=f.policy, may_reroll="reroll" in f.effects)
    ok = roll.reaches(CLIMB_TARGET)
    events.append(Event("climb", f"{f.id} climbs to {square_name(to)} (E {f.stat('E')}"
                        f"{f', {modifier:+d}' if modifier else ''}): {roll.describe()}: "
                        f"{'made it to the roof' if ok else 'stays on the street'}.",
                        {"unit": f.id, "square": square_name(to), "ok": ok}))
    return ok
