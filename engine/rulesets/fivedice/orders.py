"""The fivedice order language (see docs/rulesets/fivedice.md for examples).

    A1 move c3                  A1 move e5 lose defence
    A1 attack B2                A1 shoot B3
    A1 cast firebolt B2         A1 use potion [lose defence]
    A1 switch shortbow          A1 dice aggressive | defensive | balanced
    A1 dice priority defence attack

A unit's lines run in the order written when its initiative turn comes; `dice` is a
standing order, taking effect from this round's placement on.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.grid import SquareError, distance
from engine.orders import Arg, Order, OrderProblem, Verb
from engine.rulesets.fivedice.allocation import AREAS
from engine.rulesets.fivedice.movement import find_path
from engine.rulesets.fivedice.state import GameState, Unit

_LOSE = Arg("lose", "word", choices=("lose",), optional=True)
_ACTION = Arg("action", "word", choices=("attack", "defence", "defense"), optional=True)
_DROP = Arg("action", "word", choices=("attack", "defence", "defense", "move"), optional=True)

MOVE = Verb("move", (Arg("square", "square"), _LOSE, _ACTION),
            help="move up to 3 x movement; beyond 1 x it loses attack or defence (say which, "
                 "default attack), beyond 2 x both", role="move")
ATTACK = Verb("attack", (Arg("target", "unit"),), help="close combat with an enemy in reach",
              role="attack")
SHOOT = Verb("shoot", (Arg("target", "unit"),),
             help="shoot the wielded ranged weapon at an enemy 2 or more squares away", role="shot")
CAST = Verb("cast", (Arg("spell", "word"), Arg("target", "unit")),
            help="cast a known spell at an enemy; the caster pays life", role="spell")
USE = Verb("use", (Arg("item", "word"), _LOSE, _DROP),
           help="use an item instead of one action (default: the attack)", role="action")
SWITCH = Verb("switch", (Arg("weapon", "word"), _LOSE, _DROP),
              help="wield another carried weapon instead of one action (default: the attack)",
              role="action")
DICE = Verb("dice", (Arg("policy", "word", choices=("aggressive", "defensive", "balanced", "priority")),
                     Arg("areas", "word", choices=(*AREAS, "defense"), optional=True, repeat=True)),
            help="how this unit places its dice from now on", role="setting")
VERBS: tuple[Verb, ...] = (MOVE, ATTACK, SHOOT, CAST, USE, SWITCH, DICE)

# Lines of one unit that compete for the same action: at most one of each group.
_ATTACKS = "an attack (attack, shoot or cast)"
GROUPS = {"move": "a move", "attack": _ATTACKS, "shoot": _ATTACKS, "cast": _ATTACKS,
          "use": "a use or switch", "switch": "a use or switch", "dice": "a dice"}


def spelled(word: str) -> str:
    return "defence" if word == "defense" else word


def lost_action(order: Order) -> str | None:
    """The action a move, use or switch line names after 'lose', if any."""
    return spelled(order.args[2]) if len(order.args) == 3 else None


def check_order(state: GameState, player: str, order: Order, expected: Sequence[str]) -> str | None:
    if order.unit is None:  # 'pass', the one unitless verb
        return None
    if player not in expected:
        return f"{player} has no orders to give this round"
    unit = state.unit(order.unit or "")
    if unit is None:
        return f"there is no unit {order.unit}"
    if unit.player != player:
        return f"{unit.id} is not yours"
    if not unit.alive:
        return f"{unit.id} has fallen"
    verb, args = order.verb, order.args
    if verb in ("move", "use", "switch") and len(args) == 2:
        return "say which action to lose, like 'lose attack'"
    if verb == "move":
        return _check_move(state, unit, args[0])
    if verb in ("attack", "shoot", "cast"):
        return _check_target(state, player, unit, verb, args)
    if verb == "use" and args[0] not in unit.items:
        return f"{unit.id} has no {args[0]} (it has: {_listed(unit.items)})"
    elif verb == "switch" and args[0] not in unit.sheet.weapons:
        return f"{unit.id} does not carry {args[0]} (it carries: {_listed(unit.sheet.weapons)})"
    elif verb == "switch" and args[0] == unit.wielded:
        return f"{unit.id} already wields {args[0]}"
    elif verb == "dice":
        return _check_dice(args)
    return None


def _check_move(state: GameState, unit: Unit, square: str) -> str | None:
    try:
        dest = state.grid.square(square)
    except SquareError as exc:
        return str(exc)
    if not state.grid.passable(dest):
        return f"{dest.name} is a wall"
    if dest == unit.square:
        return f"{unit.id} is already on {dest.name}"
    far, most = distance(unit.square, dest), 3 * unit.sheet.movement
    if far > most:
        return f"{dest.name} is {far} squares away; {unit.id} moves at most 3 x {unit.sheet.movement}"
    if find_path(state, unit, dest, through_enemies=True) is None:
        # Walls stay where they are all game: units may move out of the way, walls never.
        return (f"{dest.name} is {far} squares away, but the walls make the way longer than "
                f"{unit.id}'s 3 x {unit.sheet.movement}")
    return None


def _check_target(state: GameState, player: str, unit: Unit, verb: str, args: tuple[str, ...]) -> str | None:
    target = state.unit(args[-1])
    if target is None:
        return f"there is no unit {args[-1]}"
    if target.player == player:
        return f"{target.id} is on your own side"
    if not target.alive:
        return f"{target.id} has fallen"
    if verb == "shoot" and not unit.sheet.ranged_weapons:
        return f"{unit.id} carries no ranged weapon"
    if verb == "cast" and args[0] not in unit.sheet.spells:
        return f"{unit.id} knows no spell {args[0]!r} (it knows: {_listed(unit.sheet.spells)})"
    return None


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names) or "nothing"


def _check_dice(args: tuple[str, ...]) -> str | None:
    areas = [spelled(a) for a in args[1:]]
    if args[0] != "priority":
        return f"'{args[0]}' takes no areas" if areas else None
    if not areas:
        return "'priority' needs areas in order, like 'priority attack defence initiative'"
    if len(set(areas)) != len(areas):
        return "name each area once"
    return None


def check_order_set(orders: Sequence[Order]) -> list[OrderProblem]:
    """At most one line per unit for each action group (one move, one attack, ...)."""
    seen: dict[tuple[str | None, str], int] = {}
    problems = []
    for o in orders:
        key = (o.unit, GROUPS[o.verb])
        if key in seen:
            problems.append(OrderProblem(o.line, f"{o.unit} already has {key[1]} order on line "
                                                 f"{seen[key]}", (seen[key],)))
        else:
            seen[key] = o.line
    return problems
