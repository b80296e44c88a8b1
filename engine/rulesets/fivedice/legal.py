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
    orders = [MOVE.order(unit.id, sq.name) for _, sq in free]
    orders += [MOVE.order(unit.id, sq.name, "lose", "defence") for cost, sq in free
               if movement_losses(cost, mp) == 1]
    return orders


def _targets(state: GameState, unit: Unit, low: int, high: int) -> list[Unit]:
    return [e for e in state.living() if e.player != unit.player
            and low <= distance(unit.square, e.square) <= high
            and state.grid.sight(unit.square, e.square).clear]


def unit_orders(state: GameState, unit: Unit) -> list[Order]:
    orders = _moves(state, unit)
    orders += [ATTACK.order(unit.id, e.id) for e in _targets(state, unit, 1, melee_weapon(unit).reach)]
    wielded = GEAR.weapons[unit.wielded] if unit.wielded else None
    if wielded and wielded.ranged:
        orders += [SHOOT.order(unit.id, e.id) for e in _targets(state, unit, MIN_SHOT, wielded.reach)]
    for name in unit.sheet.spells:
        spell = GEAR.spells[name]
        orders += [CAST.order(unit.id, name, e.id) for e in _targets(state, unit, 0, spell.range)]
    orders += [USE.order(unit.id, item) for item in sorted(set(unit.items))]
    orders += [SWITCH.order(unit.id, w) for w in unit.sheet.weapons if w != unit.wielded]
    orders += [DICE.order(unit.id, p) for p in ("aggressive", "balanced", "defensive")]
    return orders


def legal_orders(state: GameState, player: str) -> dict[str, list[Order]]:
    return {u.id: unit_orders(state, u) for u in state.living() if u.player == player}
