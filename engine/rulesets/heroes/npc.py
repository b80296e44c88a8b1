"""The game's figures: henchmen and nemeses act after the last hero's turn.

docs/rulesets/heroes.md: "Henchmen are run by the game: they strike heroes in their range and otherwise
step toward the nearest hero." A Nemesis behaves the same way but hunts its own hero
first. Left to the game, a figure keeps to the streets (it never climbs) and strikes once
per General A.P. With option `villain_player`, that player's orders move (climbing like a
hero), turn and aim these figures; a figure given no order acts as the game would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.contract import Event
from engine.dice import Dice
from engine.grid import Square, distance
from engine.orders import Order
from engine.rulesets.heroes import movement, paths
from engine.rulesets.heroes.engagement import fight, foes_of
from engine.rulesets.heroes.state import Figure, HeroesState


def npc_phase(state: HeroesState, orders: Mapping[str, Sequence[Order]], dice: Dice,
              events: list[Event]) -> None:
    """Every active henchman, then every active nemesis, in the order they came in."""
    movers = [f.id for f in state.figures.values() if f.kind == "henchman" and f.active]
    movers += [f.id for f in state.figures.values() if f.kind == "nemesis" and f.active]
    for fid in movers:
        f = state.figures.get(fid)
        if f is None or not f.active or state.winner is not None:
            continue
        given = orders.get(fid, ())
        if given:
            ordered_act(state, f, given, dice, events)
        else:
            auto_act(state, f, dice, events)


def ordered_act(state: HeroesState, f: Figure, given: Sequence[Order], dice: Dice,
                events: list[Event]) -> None:
    """The villain player's orders: move, face, then strike (targets in the order named)."""
    moved = False
    for o in given:
        if o.verb == "move":
            moved = movement.move_order(state, f, list(o.args), False, dice, events)
        elif o.verb == "face":
            f.facing = o.args[0]
    preferred = [a for o in given if o.verb == "attack" for a in o.args]
    fight(state, f, preferred, f.spec.general_ap, moved, dice, events)


def auto_act(state: HeroesState, f: Figure, dice: Dice, events: list[Event]) -> None:
    if fight(state, f, (), f.spec.general_ap, False, dice, events) < f.spec.general_ap:
        return
    heroes = foes_of(state, f)
    if not heroes:
        return
    goal = min(heroes, key=lambda h: (h.owner != f.owner, distance(h.square, f.square), h.id))
    step_towards(state, f, goal.square, dice, events)


def step_towards(state: HeroesState, f: Figure, goal: Square, dice: Dice,
                 events: list[Event]) -> None:
    """Walk the streets to the square nearest the goal (then fewest steps, then board order)."""
    taken = {g.square for g in state.figures.values() if g.kind != "hero" and g.id != f.id}
    found = paths.search(state, f.square, paths.budget(f.spec.move_ap), streets_only=True)
    # min over paths.steps(found) by (distance(s, goal), s in taken, steps, row, col),
    # on the search's plain (col, row) cells: a Square only for the one chosen
    gc, gr = goal
    c, r = min(found, key=lambda s: (max(abs(s[0] - gc), abs(s[1] - gr)), s in taken,
                                     found[s][0] // paths.STEP, s[1], s[0]))
    best = Square(c, r)
    if best == f.square or best in taken:
        return
    movement.walk(state, f, paths.route(found, best), f.spec.move_ap, False, dice, events)
