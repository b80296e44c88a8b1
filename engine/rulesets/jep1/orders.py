"""jep1's order verbs, their checks against the state, and every legal line per unit.

    A1 move c3                   # up to 4 squares (waypoints allowed: A1 move b2 c3)
    A1 attack B2                 # melee; closes in with what is left of the 4 squares
    A1 attack B2 with berserk    # attack skills are named with the attack (at most 2 a phase)
    A3 shoot B3 with aim         # ranged: R dice against the target's I dice
    A1 guard parry shield        # standing defence skills, kept until changed, spent only
                                 # when they can change the outcome
    A1 guard parry shield always # ... spent in every exchange
    A1 guard none                # stop using standing defence skills
    A1 strike back with berserk  # standing attack skills for its strike backs
    A1 strike back none          # (also: A1 strikeback berserk)

A unit takes at most one move, one attack or shoot, one guard and one strike back a round. The move
happens before the attack whatever the line order ("move 4 squares before his melee
attack").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.contract import InvariantError, PlayerId
from engine.grid import Grid, Square, distance, parse_square
from engine.orders import Arg, Order, OrderProblem, Verb
from engine.rulesets.jep1.movement import MOVE, move_path
from engine.rulesets.jep1.progress import expected
from engine.rulesets.jep1.ranged import shot_problem
from engine.rulesets.jep1.skills import ATTACK, DEFENCE, skill_problem
from engine.rulesets.jep1.state import JepState
from engine.rulesets.jep1.units import Unit

_SKILL_WORDS = Arg("skills", "word", optional=True, repeat=True)
MOVE_VERB = Verb("move", (Arg("to", "square", repeat=True),),
                 help="move up to 4 squares, around other units: A1 move c3", role="move")
ATTACK_VERB = Verb("attack", (Arg("target", "unit"), _SKILL_WORDS),
                   help="melee an enemy, closing in first if needed: A1 attack B2 [with berserk aim]",
                   role="attack")
SHOOT = Verb("shoot", (Arg("target", "unit"), _SKILL_WORDS),
             help="shoot an enemy within reach and sight: A3 shoot B2 [with aim]", role="shot")
GUARD = Verb("guard", (Arg("skills", "word", repeat=True),),
             help="standing defence skills, kept until changed and spent only when they can change "
                  "the outcome: A1 guard parry (A1 guard parry always: in every exchange; "
                  "A1 guard none)", role="setting")
STRIKEBACK = Verb("strikeback", (Arg("skills", "word", repeat=True),),
                  help="standing attack skills for the unit's strike backs, kept until changed: "
                       "A1 strike back with berserk (or: A1 strike back none)",
                  aliases=("strike", "counter"), fillers=("back", "with"), role="setting")
VERBS: tuple[Verb, ...] = (MOVE_VERB, ATTACK_VERB, SHOOT, GUARD, STRIKEBACK)
GUARD_POLICIES = ("useful", "always")  # when a standing defence skill is spent
ACTIONS = ("attack", "shoot")


@dataclass
class Plan:
    """One unit's orders for a round."""

    move: Order | None = None
    action: Order | None = None
    guard: Order | None = None
    strike: Order | None = None


def plans(orders: Sequence[Order]) -> dict[str, Plan]:
    out: dict[str, Plan] = {}
    for o in orders:
        if o.unit is None:
            raise InvariantError(f"order {o} names no unit")
        plan = out.setdefault(o.unit, Plan())
        if o.verb == "move":
            plan.move = o
        elif o.verb in ACTIONS:
            plan.action = o
        elif o.verb == "guard":
            plan.guard = o
        elif o.verb == "strikeback":
            plan.strike = o
    return out


def named_skills(order: Order) -> list[str]:
    """The skills after 'with' in an attack or shoot order (checked to be well formed)."""
    return list(order.args[2:])


def guard_skills(order: Order) -> list[str]:
    """The skills of a guard or strike back order (none, and the policy word, left out)."""
    return [a for a in order.args if a != "none" and a not in GUARD_POLICIES]


def guard_policy(order: Order) -> str:
    """When the guard's skills are spent: the policy word it names, else "useful"."""
    return next((a for a in order.args if a in GUARD_POLICIES), "useful")


def _squares(grid: Grid, words: Sequence[str]) -> list[Square] | str:
    out = []
    for w in words:
        sq = parse_square(w)
        if not grid.contains(sq):
            return f"{w} is off the {grid.width}x{grid.height} grid"
        out.append(sq)
    return out


def check_order(state: JepState, player: PlayerId, order: Order, expecting: bool | None = None) -> str | None:
    """Why the order is refused, or None. expecting: whether player is in expected(state),
    when the caller already knows (a whole text is checked line by line)."""
    if not (player in expected(state) if expecting is None else expecting):
        return f"{player} has no orders to give this round"
    if order.unit is None:  # 'pass'
        return None
    unit = state.unit(order.unit)
    if unit is None:
        return f"there is no unit {order.unit}"
    if unit.side != player:
        return f"{unit.id} is not your unit"
    if not unit.alive:
        return f"{unit.id} is dead"
    if order.verb == "move":
        return _check_move(state, unit, order)
    if order.verb in ACTIONS:
        return _check_action(state, unit, order)
    if order.verb == "strikeback":
        return _check_strike(unit, order)
    return _check_guard(unit, order)


def _check_move(state: JepState, unit: Unit, order: Order) -> str | None:
    grid = state.grid()
    squares = _squares(grid, order.args)
    if isinstance(squares, str):
        return squares
    path = move_path(grid, unit.at, squares, MOVE, state.occupied(), bool(state.options["diagonals"]))
    if path is not None and not path.squares:
        return f"{unit.id} is already on {unit.at.name}"
    if path is None:
        return _unreachable(state, unit, order.args, squares)
    return None


def _unreachable(state: JepState, unit: Unit, names: Sequence[str], squares: list[Square]) -> str:
    """Why no move through these squares fits, saying what is true: the end square is
    taken, or it is out of reach even on an empty board, or only other units are in the
    way."""
    grid, diagonals = state.grid(), bool(state.options["diagonals"])
    where = f"{' then '.join(names)} from {unit.at.name}"
    taken = {u.at: u for u in state.units if u.alive and u.id != unit.id}
    if squares[-1] in taken:
        return f"{unit.id} cannot move to {names[-1]}: {taken[squares[-1]].id} stands there"
    if not grid.passable(squares[-1]):
        return f"{unit.id} cannot move to {names[-1]}: it is a wall"
    steps, here = 0, unit.at
    for sq in squares:
        dc, dr = abs(sq.col - here.col), abs(sq.row - here.row)
        steps += max(dc, dr) if diagonals else dc + dr
        here = sq
    if steps > MOVE:
        return (f"{unit.id} cannot reach {where}: that is {steps} squares, and a move is at "
                f"most {MOVE}")
    if move_path(grid, unit.at, squares, MOVE, set(), diagonals) is None:
        return f"{unit.id} cannot reach {where} in {MOVE} squares: the walls are in the way"
    # A unit is in the way when a move within the 4 squares would pass its square, were
    # no unit on the board.
    blocking = [f"{u.id} on {sq.name}" for sq, u in sorted(taken.items())
                if distance(unit.at, sq) <= MOVE
                and move_path(grid, unit.at, [sq, *squares], MOVE, set(), diagonals) is not None]
    said = f" ({_listed(blocking)} in the way)" if blocking else ""
    return (f"{unit.id} cannot reach {where} in {MOVE} squares without passing through "
            f"other units{said}")


def _listed(words: Sequence[str]) -> str:
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def _check_action(state: JepState, unit: Unit, order: Order) -> str | None:
    target = state.unit(order.args[0])
    if target is None:
        return f"there is no unit {order.args[0]}"
    if target.side == unit.side:
        return f"{target.id} is on your side"
    if not target.alive:
        return f"{target.id} is already dead"
    if order.verb == "shoot" and unit.R < 1:
        return f"{unit.id} has no ranged attack (R0)"
    words = order.args[1:]
    if words and words[0] != "with":
        return f"name skills after 'with': {unit.id} {order.verb} {target.id} with SKILL"
    if words and len(words) == 1:
        return "name at least one skill after 'with'"
    return skill_problem(words[1:], ATTACK, unit.skills, unit.uses)


def _check_guard(unit: Unit, order: Order) -> str | None:
    policies = [a for a in order.args if a in GUARD_POLICIES]
    if len(policies) > 1:
        return f"name one of {' or '.join(GUARD_POLICIES)}, not both"
    skills = guard_skills(order)
    if "none" in order.args:
        return None if order.args == ("none",) else "'guard none' stands alone"
    if not skills:
        return f"name the skills to guard with, like '{unit.id} guard SKILL {policies[0]}'"
    return skill_problem(skills, DEFENCE, unit.skills, unit.uses)


def _check_strike(unit: Unit, order: Order) -> str | None:
    if "none" in order.args:
        return None if order.args == ("none",) else "'strike back none' stands alone"
    return skill_problem(order.args, ATTACK, unit.skills, unit.uses)


def check_order_set(state: JepState, player: PlayerId, orders: Sequence[Order]) -> list[OrderProblem]:
    """One move, one attack or shoot and one guard per unit, actions in range."""
    problems: list[OrderProblem] = []
    seen: dict[tuple[str, str], int] = {}
    for o in orders:
        slot = "action" if o.verb in ACTIONS else o.verb
        key = (o.unit or "", slot)
        if key in seen:
            problems.append(OrderProblem(o.line, f"{o.unit} already has a{'n' * (slot == 'action')} "
                                                 f"{slot} order on line {seen[key]}", (seen[key],)))
        else:
            seen[key] = o.line
    if problems:
        return problems
    grid = state.grid()
    occupied = state.occupied()
    diagonals = bool(state.options["diagonals"])
    for uid, plan in plans(orders).items():
        unit = state.unit(uid)
        if plan.action is None or unit is None:
            continue
        frm, left = unit.at, MOVE
        if plan.move is not None:
            path = move_path(grid, unit.at, [parse_square(w) for w in plan.move.args], MOVE, occupied,
                             diagonals)
            if path is not None and path.end is not None:
                frm, left = path.end, MOVE - path.cost
        target = state.unit(plan.action.args[0])
        problem = target and _reach_problem(grid, unit, frm, left, plan.action.verb, target)
        if problem:
            others = (plan.move.line,) if plan.move is not None else ()
            problems.append(OrderProblem(plan.action.line, problem, others))
    return problems


def _reach_problem(grid: Grid, unit: Unit, frm: Square, left: int, verb: str, target: Unit) -> str | None:
    """Whether the target, where it stands now, is in reach from where the unit will be."""
    if verb == "shoot":
        return shot_problem(grid, unit, frm, target.at)
    far = distance(frm, target.at)
    if far > left + 1:
        return (f"{target.id} is {far} squares from {frm.name}: too far for {unit.id} "
                f"to reach this round ({left} square{'s' * (left != 1)} of movement left)")
    return None
