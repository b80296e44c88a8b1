"""jep1's own greedy bot: good enough to finish games, simple enough to read.

Each unit stands guard with its defence skills and stands ready to strike back with its
attack skills (at most two a phase each), then: a shooter (R above M) shoots the
weakest enemy in reach, stepping up first if none is; a fighter attacks the weakest
enemy it can close in on, else marches on the nearest (counting steps around walls). Skills with uses left are
spent at once. Squares other units of the bot plan to take are kept free. Choices
between equally good squares come from the bot's dice, so a seed names one game.
"""

from __future__ import annotations

from collections import deque

from engine.contract import PlayerId
from engine.dice import Dice
from engine.grid import Grid, Square, distance
from engine.orders import Order
from engine.rulesets.jep1.initiative import acting_order
from engine.rulesets.jep1.legal import usable
from engine.rulesets.jep1.movement import MOVE, approach, reachable
from engine.rulesets.jep1.orders import ATTACK_VERB, GUARD, MOVE_VERB, SHOOT, STRIKEBACK
from engine.rulesets.jep1.progress import expected
from engine.rulesets.jep1.ranged import shot_problem
from engine.rulesets.jep1.skills import ATTACK, DEFENCE, MAX_PER_PHASE, SKILLS
from engine.rulesets.jep1.state import JepState
from engine.rulesets.jep1.units import Unit


def bot_orders(state: JepState, player: PlayerId, dice: Dice) -> list[Order]:
    if player not in expected(state):
        return []
    grid, occupied = state.grid(), state.occupied()
    diagonals = bool(state.options["diagonals"])
    enemies = [u for u in state.living() if u.side != player]
    claimed = set(occupied)
    lines: list[Order] = []
    for uid in acting_order(state.units, state.round, state.first):
        unit = state.unit(uid)
        if unit is None or unit.side != player:
            continue
        guard = _per_phase(usable(unit, DEFENCE))
        if guard and sorted(guard) != sorted(unit.guard):
            lines.append(GUARD.order(uid, *guard))
        strike = _per_phase(usable(unit, ATTACK))
        if strike and sorted(strike) != sorted(unit.strike):
            lines.append(STRIKEBACK.order(uid, *strike))
        with_skills = _with(_per_phase(usable(unit, ATTACK)))
        weakest = sorted(enemies, key=lambda e: (e.H + e.A, distance(unit.at, e.at), e.id))
        if unit.R > unit.M:
            lines.extend(_shooter(grid, unit, weakest, claimed, occupied, diagonals, with_skills, dice))
            continue
        for enemy in weakest:
            path = approach(grid, unit.at, enemy.at, MOVE, claimed - {unit.at}, diagonals)
            if path is not None:
                if path.end is not None:
                    claimed.add(path.end)
                lines.append(ATTACK_VERB.order(uid, enemy.id, *with_skills))
                break
        else:
            step = _towards(grid, unit, enemies, claimed, occupied, diagonals, dice)
            if step is not None:
                lines.append(MOVE_VERB.order(uid, step.name))
    return lines


def _shooter(grid: Grid, unit: Unit, weakest: list[Unit], claimed: set[Square], occupied: set[Square],
             diagonals: bool, with_skills: tuple[str, ...], dice: Dice) -> list[Order]:
    for enemy in weakest:
        if shot_problem(grid, unit, unit.at, enemy.at) is None:
            return [SHOOT.order(unit.id, enemy.id, *with_skills)]
    step = _towards(grid, unit, weakest, claimed, occupied, diagonals, dice)
    if step is None:
        return []
    lines = [MOVE_VERB.order(unit.id, step.name)]
    for enemy in weakest:
        if shot_problem(grid, unit, step, enemy.at) is None:
            lines.append(SHOOT.order(unit.id, enemy.id, *with_skills))
            break
    return lines


def _towards(grid: Grid, unit: Unit, enemies: list[Unit], claimed: set[Square], occupied: set[Square],
             diagonals: bool, dice: Dice) -> Square | None:
    """A free square within 4 that is fewest steps (around walls) from an enemy (None: stay)."""
    if not enemies:
        return None
    field = walking_distance(grid, [e.at for e in enemies], diagonals)
    far = grid.width * grid.height
    spots = [sq for sq in reachable(grid, unit.at, MOVE, occupied, diagonals) if sq not in claimed]
    if not spots or min(field.get(sq, far) for sq in spots) >= field.get(unit.at, far):
        return None
    best = min(field.get(sq, far) for sq in spots)
    pick = sorted((sq for sq in spots if field.get(sq, far) == best), key=lambda s: (s.row, s.col))
    chosen = pick[dice.roll(len(pick), f"bot {unit.id} move") - 1]
    claimed.add(chosen)
    return chosen


def walking_distance(grid: Grid, sources: list[Square], diagonals: bool) -> dict[Square, int]:
    """Steps from the nearest source to every square, around walls (units ignored: they move)."""
    field = dict.fromkeys(sources, 0)
    frontier = deque(sources)
    while frontier:
        sq = frontier.popleft()
        for n in grid.neighbours(sq, diagonals):
            if n not in field and grid.passable(n):
                field[n] = field[sq] + 1
                frontier.append(n)
    return field


def _per_phase(names: list[str]) -> list[str]:
    """Keep at most MAX_PER_PHASE skills of each phase, in order."""
    out: list[str] = []
    for name in names:
        if sum(1 for k in out if SKILLS[k].phase == SKILLS[name].phase) < MAX_PER_PHASE:
            out.append(name)
    return out


def _with(names: list[str]) -> tuple[str, ...]:
    """The words naming attack skills: ("with", skill, ...), or none."""
    return ("with", *names) if names else ()
