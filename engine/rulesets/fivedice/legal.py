"""The orders each unit may be given now: for forms, bots and the contract test.

Moves list every square a unit can reach now, nearest first (then a `lose defence`
variant for each move that costs one action); attacks list only targets in reach now.
Orders written for squares or targets that only open up later in the round are still
accepted by the parser.
"""

from __future__ import annotations

from engine.grid import Costs, distance
from engine.orders import Order
from engine.rulesets.fivedice.actions import melee_weapon, movement_losses
from engine.rulesets.fivedice.gear import GEAR
from engine.rulesets.fivedice.movement import enemy_squares
from engine.rulesets.fivedice.orders import ATTACK, CAST, DICE, MOVE, SHOOT, SWITCH, USE
from engine.rulesets.fivedice.ranged import MIN_SHOT
from engine.rulesets.fivedice.state import GameState, Unit


def _moves(state: GameState, unit: Unit) -> list[Order]:
    blocked = enemy_squares(state, unit)
    taken = {u.square for u in state.living()}
    mp = unit.sheet.movement
    reach = state.grid.search(unit.square, 3 * mp, Costs(closed=blocked), bool(state.options["diagonals"]))
    # Nearest first (what a form or a mail shows as examples), the variants last.
    free = sorted((cost, sq) for sq, (cost, _) in reach.items() if sq not in taken)
    orders = [MOVE.order(unit.id, sq.name, cost=move_cost(unit, movement_losses(cost, mp) or 0, "attack"))
              for cost, sq in free]
    orders += [MOVE.order(unit.id, sq.name, "lose", "defence", cost=move_cost(unit, 1, "defence"))
               for cost, sq in free if movement_losses(cost, mp) == 1]
    return orders


def costs_its(unit: Unit, *actions: str) -> str:
    """'costs its attack', or both for a skill-0 unit, whose attack and defence are one
    action ("only one action in addition to move used for either attack or defense")."""
    if unit.sheet.skill == 0 and set(actions) & {"attack", "defence"}:
        actions = tuple(dict.fromkeys([a for a in actions if a not in ("attack", "defence")]
                                      + ["attack", "defence"]))
    return "costs its " + " and ".join(actions) + " this round"


def move_cost(unit: Unit, losses: int, preferred: str) -> str:
    """What a move of `losses` (movement_losses) costs, paid with `preferred` when it is one:
    "Up to double Movement Points: loose either Attack or Defence ... Up to three-times
    Movement Points: loose Attack and Defence"."""
    if losses == 0:
        return ""
    return costs_its(unit, preferred) if losses == 1 else costs_its(unit, "attack", "defence")


SKIRMISH_COST = "costs its defence too: the skirmish spends its attack and defence"


def _targets(state: GameState, unit: Unit, low: int, high: int) -> list[Unit]:
    return [e for e in state.living() if e.player != unit.player
            and low <= distance(unit.square, e.square) <= high
            and state.grid.sight(unit.square, e.square).clear]


def unit_orders(state: GameState, unit: Unit) -> list[Order]:
    orders = _moves(state, unit)
    # "this consumes the attack and defense action from an opponent as well": a skirmish
    # spends both of the attacker's too.
    orders += [ATTACK.order(unit.id, e.id, cost=SKIRMISH_COST)
               for e in _targets(state, unit, 1, melee_weapon(unit).reach)]
    wielded = GEAR.weapons[unit.wielded] if unit.wielded else None
    single = costs_its(unit, "defence") if unit.sheet.skill == 0 else ""
    if wielded and wielded.ranged:
        orders += [SHOOT.order(unit.id, e.id, cost=single)
                   for e in _targets(state, unit, MIN_SHOT, wielded.reach)]
    for name in unit.sheet.spells:
        spell = GEAR.spells[name]
        price = "costs life: its attack against its own defence" + (f"; {single}" if single else "")
        orders += [CAST.order(unit.id, name, e.id, cost=price) for e in _targets(state, unit, 0, spell.range)]
    # Without 'lose ...' an item or a switch drops the attack (the first unspent of
    # attack, defence, move: all are, for the order on its own).
    orders += [USE.order(unit.id, item, cost=costs_its(unit, "attack")) for item in sorted(set(unit.items))]
    orders += [SWITCH.order(unit.id, w, cost=costs_its(unit, "attack"))
               for w in unit.sheet.weapons if w != unit.wielded]
    orders += [DICE.order(unit.id, p) for p in ("aggressive", "balanced", "defensive")]
    return orders


def legal_orders(state: GameState, player: str) -> dict[str, list[Order]]:
    return {u.id: unit_orders(state, u) for u in state.living() if u.player == player}
