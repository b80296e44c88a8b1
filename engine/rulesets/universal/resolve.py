"""One round (docs/rulesets/universal.md): sides act in seat order, the first seat rotating each round over
the sides still in;
each side's orders act in the order they were written.

"Only one unit can attack in turn" and "Each unit move in your turn": a side makes at
most one attack and each of its units at most one move. An order that is no longer
legal when it acts (its unit fell, the target moved away, the path filled up) is
skipped with a "skip" event that says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.contract import Event
from engine.dice import Dice
from engine.orders import Order
from engine.turns import expected_players

from .combat import attack, can_hit
from .orders import move_path
from .state import State


def acting_order(state: State) -> list[str]:
    """Who acts this round and in what order: seat order from a first seat that rotates each
    round over the sides still in (a fallen side keeps no place in the rotation, as in
    alternating mode's turn order)."""
    alive = state.alive_sides
    expected = expected_players(str(state.options["turn_mode"]), state.seats, alive, state.round)
    if not alive:
        return []
    start = (state.round - 1) % len(alive)
    rotated = alive[start:] + alive[:start]
    return [s for s in rotated if s in expected]


def resolve_round(state: State, orders: Mapping[str, Sequence[Order]],
                  dice: Dice) -> tuple[State, list[Event]]:
    new = state.copy()
    new.marks = []
    events: list[Event] = []
    acting = acting_order(state)
    for side in sorted(set(orders) - set(acting)):
        if orders[side]:
            events.append(Event("skip", f"the orders of {side} are ignored: {side} does not act "
                                f"this round", {"side": side, "reason": "not expected"}))
    for side in acting:
        if len(new.alive_sides) <= 1:
            break
        if side in new.out:
            continue
        given = orders.get(side, ())
        if not given:
            events.append(Event("hold", f"{side} gives no orders: every unit holds", {"side": side}))
        attacked = False
        for order in given:
            if order.verb == "move":
                events += _move(new, side, order)
            elif order.verb == "attack":
                done, evs = _attack(new, side, order, dice)
                attacked = attacked or done
                events += evs
            elif order.verb == "hold" and order.unit in new.units:
                events.append(Event("hold", f"{order.unit} holds on {new.units[order.unit].square.name}",
                                    {"side": side, "unit": order.unit}))
            if len(new.alive_sides) <= 1:
                break
        if not attacked:
            new.streaks.pop(side, None)
    new.round += 1
    return new, events


def _skip(side: str, order: Order, why: str) -> Event:
    return Event("skip", f"{order.format()} is skipped: {why}",
                 {"side": side, "order": order.format(), "unit": order.unit, "reason": why})


def _move(state: State, side: str, order: Order) -> list[Event]:
    unit = state.units.get(order.unit or "")
    if unit is None or unit.side != side:
        return [_skip(side, order, f"{order.unit} was defeated")]
    path = move_path(state, unit, order.args)
    if isinstance(path, str):
        return [_skip(side, order, path)]
    start = unit.square
    unit.square = path[-1]
    squares = [start.name, *(sq.name for sq in path)]
    state.marks.append({"kind": "move", "squares": squares, "side": side})
    return [Event("move", f"{unit.id} moves {' '.join(squares)}",
                  {"unit": unit.id, "squares": squares})]


def _attack(state: State, side: str, order: Order, dice: Dice) -> tuple[bool, list[Event]]:
    attacker = state.units.get(order.unit or "")
    if attacker is None or attacker.side != side:
        return False, [_skip(side, order, f"{order.unit} was defeated")]
    target = state.units.get(order.args[0])
    if target is None:
        return False, [_skip(side, order, f"{order.args[0]} is no longer on the board")]
    reason = can_hit(state, attacker, target)
    if reason:
        return False, [_skip(side, order, reason)]
    state.marks.append({"kind": "attack", "squares": [attacker.square.name, target.square.name],
                        "side": side})
    previous = state.streaks.get(side)
    repeats = previous[1] + 1 if previous and previous[0] == attacker.id else 0
    events, _damage = attack(state, attacker, target, dice)
    state.streaks[side] = (attacker.id, repeats)
    events += eliminate(state)
    return True, events


def eliminate(state: State) -> list[Event]:
    """"Defeating tokens is not required to victory": a side with no non-token character
    left loses, and its tokens leave the board with it."""
    events: list[Event] = []
    for side in state.alive_sides:
        if any(not u.token for u in state.units.values() if u.side == side):
            continue
        state.out.append(side)
        state.streaks.pop(side, None)
        for uid in [u.id for u in state.units.values() if u.side == side]:
            del state.units[uid]
        events.append(Event("eliminated", f"{side} has no characters left and is out of the game",
                            {"side": side}))
    return events
