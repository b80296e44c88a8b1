"""Moving: up to 3 × movement points, paid for with the attack and defence actions.

"Diagonal movement is allowed but not over an the enemy occupied the field." Friendly
squares may be passed through, but a move ends on an empty square.
"""

from __future__ import annotations

from engine.grid import Path, Square, distance, parse_square
from engine.rulesets.fivedice.actions import Skip, movement_losses
from engine.rulesets.fivedice.context import RoundContext
from engine.rulesets.fivedice.state import GameState, Unit

DEFAULT_LOSS = "attack"
WEIGHT = 64  # docs/rulesets/fivedice.md: the order says which, default attack


def enemy_squares(state: GameState, unit: Unit) -> set[Square]:
    player = unit.player
    return {u.square for u in state.units if u.life > 0 and u.player != player}  # alive, inlined


def find_path(state: GameState, unit: Unit, dest: Square, through_enemies: bool = False) -> Path | None:
    """The cheapest way to dest now (never through an enemy, unless `through_enemies`
    asks for the walls alone; the straightest of equals), None if beyond 3 × MP.
    3 × 6 MP steps × bend 3 < WEIGHT keeps the cost exact."""
    enemies = set() if through_enemies else enemy_squares(state, unit)
    most = 3 * unit.sheet.movement
    grid, diagonals = state.grid, bool(state.options["diagonals"])
    if diagonals and distance(unit.square, dest) <= most:
        # The common case, without a search: the straight line is free, and with
        # diagonals its length is the least possible (the Chebyshev distance).
        line = [*grid.line(unit.square, dest), dest]
        if all(grid.passable(sq) and sq not in enemies for sq in line):
            return Path(tuple(line), len(line))
    # Grid.path with straight_costs(unit.square, dest, enemies, WEIGHT, bend 3, scale 1)
    # as the table, worked out without a heap.
    path = grid.straight_path(unit.square, dest, most * WEIGHT + WEIGHT - 1, enemies, diagonals,
                              weight=WEIGHT)
    if path is None or path.cost // WEIGHT > most:
        return None
    return Path(path.squares, path.cost // WEIGHT)


def move(ctx: RoundContext, unit: Unit, dest_name: str, lose: str | None) -> None:
    turn = ctx.turns[unit.id]
    if not turn.move:
        raise Skip("its move is already spent this round")
    dest = parse_square(dest_name)
    if dest == unit.square:
        raise Skip(f"it is already on {dest.name}")
    occupant = ctx.state.occupant(dest)
    if occupant is not None:
        raise Skip(f"{dest.name} is taken by {occupant.id}")
    mp = unit.sheet.movement
    path = find_path(ctx.state, unit, dest)
    if path is None:
        raise Skip(f"{dest.name} cannot be reached within 3 x {mp} squares: "
                   + why_unreachable(ctx.state, unit, dest))
    lost, note = move_costs(turn.attack, turn.defence, movement_losses(path.cost, mp) or 0,
                            lose or DEFAULT_LOSS, path.cost, mp)
    for action in lost:
        turn.spend(action)
    turn.spend("move")
    start = unit.square
    unit.square = dest
    cost = f" (costs its {' and '.join(lost)}{note})" if lost else ""
    ctx.log("move", f"{unit.id} moves {start.name} to {dest.name}: {path.cost} squares of "
                    f"movement {mp}{cost}.",
            unit=unit.id, path=[start.name, *(s.name for s in path.squares)], lost=lost)
    ctx.mark("move", [start, *path.squares], unit)


def move_costs(attack: bool, defence: bool, losses: int, preferred: str, cost: int,
               mp: int) -> tuple[list[str], str]:
    """The actions a move of `losses` (0, 1 or 2) pays with, and a note when the preferred
    one could not be used. The cost must not depend on the order of the unit's actions
    (docs/rulesets/fivedice.md): a spent action cannot pay, so after a shot (attack spent) a move beyond MP
    costs the defence, and one that finds nothing left to pay with is skipped, just as a
    shot after such a move would be."""
    unspent = {"attack": attack, "defence": defence}
    if losses == 0:
        return [], ""
    if losses == 2:
        spent = [a for a, left in unspent.items() if not left]
        if spent:
            raise Skip(f"a move of {cost} squares (over 2 x {mp}) costs its attack and defence, "
                       f"and its {' and '.join(spent)} is already spent this round")
        return ["attack", "defence"], ""
    if unspent[preferred]:
        return [preferred], ""
    other = "defence" if preferred == "attack" else "attack"
    if not unspent[other]:
        raise Skip(f"a move of {cost} squares (over {mp}) costs its attack or defence, and "
                   f"both are already spent this round")
    return [other], f", its {preferred} being already spent"


def why_unreachable(state: GameState, unit: Unit, dest: Square) -> str:
    """Why no way within 3 × MP reaches dest: the distance, the walls, or the enemies
    standing on every short way ("not over an the enemy occupied the field")."""
    most = 3 * unit.sheet.movement
    far = distance(unit.square, dest)
    if far > most:
        return f"it is {far} squares away"
    if find_path(state, unit, dest, through_enemies=True) is None:
        return "the walls are in the way"
    # An enemy is in the way when a way within 3 × MP passes its square, walls alone counted.
    grid, diagonals = state.grid, bool(state.options["diagonals"])
    blocking = []
    for enemy in sorted(state.living(), key=lambda u: u.id):
        if enemy.player == unit.player or distance(unit.square, enemy.square) > most:
            continue
        there = grid.path(unit.square, enemy.square, most, diagonals=diagonals)
        back = grid.path(enemy.square, dest, most, diagonals=diagonals)
        if there is not None and back is not None and there.cost + back.cost <= most:
            blocking.append(f"{enemy.id} on {enemy.square.name}")
    named = ", ".join(blocking[:-1]) + " and " + blocking[-1] if len(blocking) > 1 else "".join(blocking)
    return f"enemies are in the way ({named})" if blocking else "enemies are in the way"
