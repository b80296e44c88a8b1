"""The universal greedy bot: the best-looking attack, then everyone closes in.

Good enough to finish games (the contract test and the bench rely on that), not clever:
it takes the attack with the most spare dice over the defence's expected cost, keeps
units that touch an enemy where they are (they add dice), and walks the rest towards
the nearest enemy character; Mortars (and custom ranged types) stop at their nearest range.
"""

from __future__ import annotations

from engine.grid import Square, distance
from engine.orders import Order

from .combat import attack_plan, can_hit
from .movement import reachable
from .orders import ATTACK, MOVE, owners
from .state import State, Unit


def _attack_score(state: State, attacker: Unit, target: Unit) -> float:
    plan = attack_plan(state, attacker, target)
    # A d6 averages 3.5: dice left over after meeting the defence is the expected damage.
    spare = plan.dice - (plan.defence + plan.penalty) / 3.5
    return spare + (0.5 if not target.token else 0.0)


def greedy_orders(state: State, player: str) -> list[Order]:
    mine = state.side_units(player)
    enemies = [u for u in state.units.values() if u.side != player]
    if not mine or not enemies:
        return []
    lines: list[Order] = []
    best: tuple[float, Order] | None = None
    for unit in mine:
        for enemy in enemies:
            if can_hit(state, unit, enemy) is None:
                score = _attack_score(state, unit, enemy)
                if best is None or score > best[0]:
                    best = (score, ATTACK.order(unit.id, enemy.id))
    attacker_id = best[1].unit if best else None
    grid = state.grid()
    occ = owners(state)
    diagonals = bool(state.options["diagonals"])
    targets = [e.square for e in enemies if not e.token] or [e.square for e in enemies]
    claimed: set[Square] = set()
    for unit in mine:
        if unit.id == attacker_id:
            continue
        want = state.attack_range(unit)[0]  # the nearest it hits at: 1, a Mortar 4
        if want == 1 and any(distance(unit.square, e.square) == 1 for e in enemies):
            continue
        options = [sq for sq in reachable(grid, occ, player, unit.square, state.movement(unit),
                                          diagonals, state.steady(unit))
                   if sq not in claimed]

        def badness(sq: Square, want: int = want) -> tuple[int, int]:
            return min(abs(distance(sq, t) - want) for t in targets), sq.col * 1000 + sq.row

        choice = min(options, key=badness) if options else unit.square
        if choice != unit.square and badness(choice) < badness(unit.square):
            claimed.add(choice)
            lines.append(MOVE.order(unit.id, choice.name))
    if best:
        lines.append(best[1])
    return lines
