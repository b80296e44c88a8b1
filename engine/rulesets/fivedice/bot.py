"""The fivedice bot: heal when low, otherwise strike the weakest enemy it can reach
(shot, spell or blade), else close in; dice aggressive when striking, defensive when
not. Plays legal orders for self-play, demos and benches."""

from __future__ import annotations

from engine.grid import Costs, Square, distance
from engine.orders import Order
from engine.rulesets.fivedice.actions import melee_weapon
from engine.rulesets.fivedice.gear import GEAR
from engine.rulesets.fivedice.orders import ATTACK, CAST, DICE, MOVE, SHOOT, USE
from engine.rulesets.fivedice.ranged import MIN_SHOT
from engine.rulesets.fivedice.state import GameState, Unit

SAFE_CASTING_LIFE = 8  # a spell's price can kill; cast only with life to spare


def _clear(state: GameState, a: Square, b: Square) -> bool:
    return state.grid.sight(a, b).clear


def _weakest(targets: list[Unit]) -> Unit | None:
    return min(targets, key=lambda u: (u.life, u.id)) if targets else None


def _strike(state: GameState, unit: Unit, at: Square, enemies: list[Unit]) -> Order | None:
    """The best attack from square `at`, if any."""
    wielded = GEAR.weapons[unit.wielded] if unit.wielded else None
    if wielded and wielded.ranged:
        shots = [e for e in enemies if MIN_SHOT <= distance(at, e.square) <= wielded.reach
                 and _clear(state, at, e.square)]
        target = _weakest(shots)
        if target:
            return SHOOT.order(unit.id, target.id)
    if unit.life >= SAFE_CASTING_LIFE:
        for name in sorted(unit.sheet.spells, key=lambda s: -GEAR.spells[s].power):
            spell = GEAR.spells[name]
            target = _weakest([e for e in enemies if distance(at, e.square) <= spell.range
                               and _clear(state, at, e.square)])
            if target:
                return CAST.order(unit.id, name, target.id)
    reach = melee_weapon(unit).reach
    target = _weakest([e for e in enemies if distance(at, e.square) <= reach])
    return ATTACK.order(unit.id, target.id) if target else None


def _approach(state: GameState, unit: Unit, enemies: list[Unit], taken: set[Square]) -> Square | None:
    """The square within movement points closest to the nearest enemy (ties: first found)."""
    blocked = {e.square for e in enemies}
    reach = state.grid.search(unit.square, unit.sheet.movement, Costs(closed=blocked),
                              bool(state.options["diagonals"]))
    here = min(distance(unit.square, e.square) for e in enemies)
    best: tuple[int, Square] | None = None
    for sq in sorted(reach):
        if sq in taken:
            continue
        d = min(distance(sq, e.square) for e in enemies)
        if d < here and (best is None or d < best[0]):
            best = (d, sq)
    return best[1] if best else None


def _policy(strike: Order | None) -> str:
    """Dice on attack for a blow or a shot, on defence while closing in. A caster pays the
    attack total minus its own defence, so extra attack dice cost it as much as they
    hurt: it stays balanced."""
    if strike is None:
        return "defensive"
    return "balanced" if strike.verb == "cast" else "aggressive"


def bot_orders(state: GameState, player: str) -> list[Order]:
    enemies = [u for u in state.living() if u.player != player]
    if not enemies:
        return []
    taken = {u.square for u in state.living()}
    lines: list[Order] = []
    for unit in state.living():
        if unit.player != player:
            continue
        if unit.items and unit.life * 5 <= unit.sheet.life * 2:
            lines.append(USE.order(unit.id, unit.items[0], "lose", "defence"))
        strike = _strike(state, unit, unit.square, enemies)
        if strike is None:
            dest = _approach(state, unit, enemies, taken)
            if dest is not None:
                taken.add(dest)
                lines.append(MOVE.order(unit.id, dest.name))
                strike = _strike(state, unit, dest, enemies)
        if strike:
            lines.append(strike)
        policy = _policy(strike)
        if unit.policy != (policy,):
            lines.append(DICE.order(unit.id, policy))
    return lines
