"""The universal order language and its checks against a state.

    A1 move c3        # the cheapest legal path to c3
    A1 move b2 c3     # through b2, then on to c3, within one movement
    A1 attack B2      # the side's one attack this round
    A1 hold           # (or: A1 stay) this unit stays where it is
    pass              # no orders: every unit holds

Orders are checked against the state they were written for; what changes before an
order acts (an earlier side moved or defeated something) is judged again at resolution.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.grid import Square, SquareError, distance, parse_square
from engine.orders import Arg, Order, Verb

from .combat import can_hit
from .movement import STEP, plan, reachable, two_step_path, why_not
from .state import State, Unit

MOVE = Verb("move", (Arg("squares", "square", repeat=True),),
            help="move through the given squares in turn (the last is where it stops)", role="move")
ATTACK = Verb("attack", (Arg("target", "unit"),),
              help="attack an adjacent enemy (a Mortar: one 4 or more squares away; a "
                   "custom type: within its range)", role="attack")
HOLD = Verb("hold", help="stay where it is this round (a unit without orders holds too)",
            aliases=("stay",), role="action")
VERBS = (MOVE, ATTACK, HOLD)


def owners(state: State) -> dict[Square, str]:
    return {u.square: u.side for u in state.units.values()}


def standing(state: State) -> dict[Square, tuple[str, str]]:
    """Each occupied square → the unit on it and its side: what a refusal names."""
    return {u.square: (u.id, u.side) for u in state.units.values()}


def own_unit(state: State, player: str, unit_id: str | None) -> Unit | str:
    """The player's living unit, or why the order cannot name it."""
    if unit_id is None:
        return "this order needs a unit"
    unit = state.units.get(unit_id)
    if unit is None:
        return f"{unit_id} is not a unit on the board"
    if unit.side != player:
        return f"{unit_id} is not your unit"
    return unit


def one_step(a: Square, b: Square, diagonals: bool) -> bool:
    """b is the next square from a: adjacent, and not diagonal unless diagonals are allowed."""
    dc, dr = abs(a[0] - b[0]), abs(a[1] - b[1])
    return max(dc, dr) == 1 and (diagonals or dc + dr == 1)


def move_path(state: State, unit: Unit, args: Sequence[str]) -> list[Square] | str:
    """The squares the move enters, or why it cannot be made now."""
    grid = state.grid()
    try:
        waypoints = [parse_square(a) for a in args]
    except SquareError as exc:
        return str(exc)
    occ = owners(state)
    budget = state.movement(unit)
    steady = state.steady(unit)
    if waypoints[-1] == unit.square:
        return f"{unit.id} is already on {unit.square.name}"
    diagonals = bool(state.options["diagonals"])
    if any(not grid.contains(w) for w in waypoints):
        return f"{unit.id} cannot move to {args[-1]}: " + why_not(grid, standing(state), unit.square,
                                                                   waypoints, budget, diagonals, steady)
    start = unit.square
    if len(waypoints) == 1 and one_step(start, waypoints[0], diagonals):
        # One step to a free square costs at most STEP_NEAR_ENEMY, within any unit's
        # movement, and every other route takes two steps (2 x STEP, more): the search
        # would return exactly this step.
        dest = waypoints[0]
        if dest not in occ and grid.passable(dest):
            return [dest]
    if (len(waypoints) == 1 and diagonals and budget == 2 * STEP and not steady
            and distance(start, waypoints[0]) == 2 and waypoints[0] not in occ
            and grid.passable(waypoints[0])):
        two = two_step_path(grid, occ, unit.side, start, waypoints[0])
        if two is not None:
            return two
    # Each square costs at least a whole step: a longer route cannot fit, skip the search.
    steps = sum(distance(a, b) for a, b in zip([start, *waypoints], waypoints, strict=False))
    path = None if steps * STEP > budget else plan(
        grid, occ, unit.side, start, waypoints, budget, diagonals, steady)
    if path is None:
        return f"{unit.id} cannot move to {waypoints[-1].name}: " + why_not(
            grid, standing(state), unit.square, waypoints, budget, diagonals, steady)
    return list(path.squares)


class OrderPlan:
    """Checks one side's orders line by line, in the order written, on a scratch board
    that each accepted move updates: the way the lines will resolve if nothing else moves
    first. So a unit may step onto a square its neighbour leaves on an earlier line, and
    an attack is judged from where the attacker will then stand."""

    def __init__(self, state: State, player: str) -> None:
        self.board = state.scratch()  # a unit is copied before it moves on it (_move)
        self.player = player
        self.moved: set[str] = set()
        self.holding: dict[str, int] = {}  # unit → the line of its hold order
        self.destinations: dict[Square, str] = {}
        self.attack_line: int | None = None  # the line of the side's attack, once given

    def check(self, order: Order) -> str | None:
        """Why this line cannot be given after the lines before it, or None (and apply it)."""
        if order.verb == "pass":
            return None
        unit = own_unit(self.board, self.player, order.unit)
        if isinstance(unit, str):
            return unit
        if order.verb == "move":
            return self._move(unit, order)
        if order.verb == "attack":
            return self._attack(unit, order)
        if order.verb == "hold":
            if unit.id in self.moved:
                return f"{unit.id} already has a move order: it cannot also hold"
            if unit.id in self.holding:
                return f"{unit.id} already holds (line {self.holding[unit.id]})"
            self.holding[unit.id] = order.line
            return None
        return f"'{order.verb}' is not an order in this game"

    def _move(self, unit: Unit, order: Order) -> str | None:
        if unit.id in self.moved:
            return f"{unit.id} already has a move order"
        if unit.id in self.holding:
            return f"{unit.id} holds (line {self.holding[unit.id]}): it cannot also move"
        end = parse_square(order.args[-1])
        if end in self.destinations:
            return f"{self.destinations[end]} already moves to {end.name}"
        found = move_path(self.board, unit, order.args)
        if isinstance(found, str):
            return found
        self.moved.add(unit.id)
        self.destinations[end] = unit.id
        moved = self.board.units[unit.id] = unit.copy()  # the scratch board shares the others
        moved.square = end
        return None

    def _attack(self, unit: Unit, order: Order) -> str | None:
        if self.attack_line is not None:
            where = f"line {self.attack_line}" if self.attack_line else "another order"
            return f"only one unit can attack each round ({where} already attacks)"
        target = self.board.units.get(order.args[0])
        if target is None:
            return f"{order.args[0]} is not a unit on the board"
        if target.side == self.player:
            return f"{target.id} is your own unit"
        reason = can_hit(self.board, unit, target)
        if reason:
            return reason
        self.attack_line = order.line
        return None


def check_order(state: State, player: str, order: Order) -> str | None:
    """One order on its own, against the board as it is."""
    return OrderPlan(state, player).check(order)


def legal_orders(state: State, player: str) -> dict[str, list[Order]]:
    """Each of the player's units → every move and attack it could be given now."""
    grid = state.grid()
    occ = owners(state)
    diagonals = bool(state.options["diagonals"])
    out: dict[str, list[Order]] = {}
    enemies = [u for u in state.units.values() if u.side != player]
    for unit in state.side_units(player):
        orders = [ATTACK.order(unit.id, e.id) for e in enemies if can_hit(state, unit, e) is None]
        for sq in sorted(reachable(grid, occ, unit.side, unit.square, state.movement(unit),
                                   diagonals, state.steady(unit))):
            if sq != unit.square:
                orders.append(MOVE.order(unit.id, sq.name))
        out[unit.id] = orders
    return out
