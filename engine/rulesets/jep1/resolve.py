"""Resolving one round: standing orders first, then every unit in its order of action.

A unit, when its turn comes, moves (its `move` order), then attacks or shoots. Orders
written for a state that has changed since (the unit or its target died, the square
filled up, the target walked out of reach) are skipped with a "skip" event saying why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.contract import Event, InvariantError, PlayerId, Resolution
from engine.dice import Dice
from engine.grid import Path, Square, parse_square
from engine.orders import Order
from engine.rulesets.jep1.initiative import acting_order
from engine.rulesets.jep1.melee import melee
from engine.rulesets.jep1.movement import MOVE, approach, move_path
from engine.rulesets.jep1.orders import Plan, guard_policy, guard_skills, named_skills, plans
from engine.rulesets.jep1.progress import expected
from engine.rulesets.jep1.ranged import shoot, shot_problem
from engine.rulesets.jep1.state import JepState
from engine.rulesets.jep1.units import Unit


def resolve_round(state: JepState, orders: Mapping[PlayerId, Sequence[Order]],
                  dice: Dice) -> Resolution[JepState]:
    s = state.clone()
    events: list[Event] = []
    marks: list[dict[str, Any]] = []
    acting = expected(state)
    by_unit: dict[str, Plan] = {}
    for player in s.players:
        if player in acting:
            by_unit.update(plans(orders.get(player, ())))
        elif orders.get(player):
            events.append(Event("skip", f"{player} had no orders to give this round; theirs are ignored.",
                                {"player": player}))
    order = acting_order(s.units, s.round, s.first)
    events.append(Event("initiative", f"Round {s.round} order of action: {', '.join(order)}.",
                        {"round": s.round, "order": order}))
    for uid in order:  # standing orders first: they hold for every attack this round
        plan = by_unit.get(uid)
        unit = s.unit(uid)
        if plan and plan.guard and unit:
            unit.guard = guard_skills(plan.guard)
            unit.guard_when = guard_policy(plan.guard)
            when = " (in every exchange)" if unit.guard_when == "always" and unit.guard else ""
            events.append(Event("guard", f"{uid} stands guard with {', '.join(unit.guard) or 'no skills'}"
                                f"{when}.", {"unit": uid, "skills": list(unit.guard),
                                             **({"when": "always"} if when else {})}))
        if plan and plan.strike and unit:
            unit.strike = guard_skills(plan.strike)
            events.append(Event("strike skills", f"{uid} will strike back with "
                                f"{', '.join(unit.strike) or 'no skills'}.",
                                {"unit": uid, "skills": list(unit.strike)}))
    for uid in order:
        plan = by_unit.get(uid)
        unit = s.unit(uid)
        if plan is None or unit is None:
            continue
        if not unit.alive:
            events.append(Event("skip", f"{uid} died before its turn; its orders are skipped.",
                                {"unit": uid}))
            continue
        _act(s, unit, plan, dice, events, marks)
    s.round += 1
    s.marks = marks
    return Resolution(s, events, list(dice.rolls))


def _act(s: JepState, unit: Unit, plan: Plan, dice: Dice, events: list[Event],
         marks: list[dict[str, Any]]) -> None:
    grid = s.grid()
    diagonals = bool(s.options["diagonals"])
    left = MOVE
    if plan.move is not None:
        waypoints = [parse_square(w) for w in plan.move.args]
        path = move_path(grid, unit.at, waypoints, MOVE, s.occupied(), diagonals)
        if path is None:
            events.append(_skip(unit, plan.move, "the way is blocked now"))
        elif path.squares:
            _walk(unit, path, "move", events, marks)
            left -= path.cost
    if plan.action is None:
        return
    action = plan.action
    target = s.unit(action.args[0])
    if target is None or not target.alive:
        events.append(_skip(unit, action, f"{action.args[0]} is already dead"))
        return
    ties_block = bool(s.options["ties_block"])
    if action.verb == "shoot":
        problem = shot_problem(grid, unit, unit.at, target.at)
        if problem:
            events.append(_skip(unit, action, problem))
            return
        marks.append(_mark("shot", [unit.at, target.at], unit.side))
        shoot(grid, unit, target, named_skills(action), ties_block, bool(s.options["ranged_strikes_back"]),
              dice, events)
        return
    path = approach(grid, unit.at, target.at, left, s.occupied(), diagonals)
    if path is None:
        events.append(_skip(unit, action, f"{target.id} on {target.at.name} is out of reach "
                                          f"({left} squares of movement left)"))
        return
    if path.squares:
        _walk(unit, path, "charge", events, marks)
    marks.append(_mark("attack", [unit.at, target.at], unit.side))
    melee(unit, target, named_skills(action), ties_block, dice, events)


def _walk(unit: Unit, path: Path, kind: str, events: list[Event], marks: list[dict[str, Any]]) -> None:
    start = unit.at
    if path.end is None:
        raise InvariantError(f"{unit.id}: an empty path to walk")
    unit.at = path.end
    squares = [start, *path.squares]
    verb = "moves" if kind == "move" else "closes in"
    events.append(Event(kind, f"{unit.id} {verb} from {start.name} to {unit.at.name}.",
                        {"unit": unit.id, "squares": [sq.name for sq in squares]}))
    marks.append(_mark("move", squares, unit.side))


def _mark(kind: str, squares: list[Square], side: str) -> dict[str, Any]:
    return {"kind": kind, "squares": [sq.name for sq in squares], "side": side}


def _skip(unit: Unit, order: Order, why: str) -> Event:
    return Event("skip", f"{unit.id}'s order '{order.format()}' is skipped: {why}.",
                 {"unit": unit.id, "order": order.format(), "reason": why})
