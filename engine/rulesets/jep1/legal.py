"""Every order line a unit may be given now: what the web form offers and the bots pick from.

Each line parses on its own. Attacks are listed for enemies the unit can close in on
this round; shots for enemies within reach and sight from where it stands.
"""

from __future__ import annotations

from itertools import combinations

from engine.contract import PlayerId
from engine.orders import Order
from engine.rulesets.jep1.movement import MOVE, approach, reachable
from engine.rulesets.jep1.orders import ATTACK_VERB, GUARD, MOVE_VERB, SHOOT, STRIKEBACK
from engine.rulesets.jep1.progress import expected
from engine.rulesets.jep1.ranged import shot_problem
from engine.rulesets.jep1.skills import ATTACK, DEFENCE, MAX_PER_PHASE, SKILLS, skill_problem
from engine.rulesets.jep1.state import JepState
from engine.rulesets.jep1.units import Unit


def usable(unit: Unit, side: str) -> list[str]:
    """The unit's skills of this side that have uses left, in the unit's own order."""
    return [n for n in unit.skills if SKILLS[n].side == side and unit.uses.get(n, 0) > 0]


def skill_sets(unit: Unit, side: str) -> list[tuple[str, ...]]:
    """Every set of usable skills of this side the rules allow together: up to
    MAX_PER_PHASE of each of the two phases, so two of a phase where the unit knows two."""
    names = usable(unit, side)
    return [group for size in range(1, min(len(names), 2 * MAX_PER_PHASE) + 1)
            for group in combinations(names, size)
            if skill_problem(group, side, unit.skills, unit.uses) is None]


def legal_orders(state: JepState, player: PlayerId) -> dict[str, list[Order]]:
    if player not in expected(state):
        return {}
    grid, occupied = state.grid(), state.occupied()
    diagonals = bool(state.options["diagonals"])
    enemies = [u for u in state.living() if u.side != player]
    out: dict[str, list[Order]] = {}
    for unit in state.living():
        if unit.side != player:
            continue
        spots = reachable(grid, unit.at, MOVE, occupied, diagonals)
        lines = [MOVE_VERB.order(unit.id, sq.name) for sq in sorted(spots, key=lambda s: (s.row, s.col))
                 if sq != unit.at]
        attack_sets = skill_sets(unit, ATTACK)
        for enemy in enemies:
            verbs = []
            if approach(grid, unit.at, enemy.at, MOVE, occupied, diagonals) is not None:
                verbs.append(ATTACK_VERB)
            if unit.R >= 1 and shot_problem(grid, unit, unit.at, enemy.at) is None:
                verbs.append(SHOOT)
            for verb in verbs:
                lines.append(verb.order(unit.id, enemy.id))
                lines.extend(verb.order(unit.id, enemy.id, "with", *k) for k in attack_sets)
        defence_sets = skill_sets(unit, DEFENCE)
        lines.extend(GUARD.order(unit.id, *k) for k in defence_sets)
        lines.extend(GUARD.order(unit.id, *k, "always") for k in defence_sets)
        if unit.guard:
            lines.append(GUARD.order(unit.id, "none"))
        lines.extend(STRIKEBACK.order(unit.id, *k) for k in attack_sets)
        if unit.strike:
            lines.append(STRIKEBACK.order(unit.id, "none"))
        out[unit.id] = lines
    return out
