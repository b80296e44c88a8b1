"""One round: roll and place every unit's five dice, rank initiative, act in turn.

Dice are asked for in a fixed order (docs/dice-spec.md numbers them): the five dice of every
living unit in unit order, then any initiative roll-offs, highest tie first. Nothing
after that rolls: combat only adds up dice already placed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from engine.contract import Resolution
from engine.dice import Dice
from engine.orders import Order
from engine.rulesets.fivedice.actions import Skip, Turn
from engine.rulesets.fivedice.allocation import allocate, normalize_policy
from engine.rulesets.fivedice.context import RoundContext
from engine.rulesets.fivedice.initiative import initiative, turn_order
from engine.rulesets.fivedice.items import switch_weapon, use_item
from engine.rulesets.fivedice.magic import cast
from engine.rulesets.fivedice.melee import melee
from engine.rulesets.fivedice.movement import move
from engine.rulesets.fivedice.orders import lost_action, spelled
from engine.rulesets.fivedice.ranged import shoot
from engine.rulesets.fivedice.state import GameState, Unit

DICE_PER_UNIT = 5

Handler = Callable[[RoundContext, Unit, Order], None]
HANDLERS: dict[str, Handler] = {
    "move": lambda ctx, u, o: move(ctx, u, o.args[0], lost_action(o)),
    "attack": lambda ctx, u, o: melee(ctx, u, o.args[0]),
    "shoot": lambda ctx, u, o: shoot(ctx, u, o.args[0]),
    "cast": lambda ctx, u, o: cast(ctx, u, o.args[0], o.args[1]),
    "use": lambda ctx, u, o: use_item(ctx, u, o.args[0], lost_action(o)),
    "switch": lambda ctx, u, o: switch_weapon(ctx, u, o.args[0], lost_action(o)),
}


def place_dice(ctx: RoundContext, dice: Dice) -> dict[str, int]:
    """Roll and place every living unit's dice; the initiative value of each."""
    die = int(ctx.state.options["die"])
    values: dict[str, int] = {}
    for unit in ctx.state.living():
        faces = dice.roll_many(DICE_PER_UNIT, die, f"{unit.id} combat dice")
        placement = allocate(faces, unit.sheet.skill, unit.policy)
        ctx.turns[unit.id] = Turn(placement, single=unit.sheet.skill == 0)
        values[unit.id] = initiative(unit, placement)
        ctx.log("dice", f"{unit.id} rolls {' '.join(map(str, faces))} and places them "
                        f"({' '.join(unit.policy)}): {placement.describe()}; initiative "
                        f"{placement.total('initiative')} + I {unit.sheet.initiative} - speed "
                        f"{unit.sheet.speed_penalty} = {values[unit.id]}.",
                unit=unit.id, faces=faces, attack=list(placement.attack),
                initiative=list(placement.initiative), defence=list(placement.defence))
    return values


def resolve_round(state: GameState, orders: Mapping[str, Sequence[Order]], dice: Dice,
                  expected: Sequence[str]) -> Resolution[GameState]:
    ctx = RoundContext(state.copy())
    new = ctx.state
    by_unit: dict[str, list[Order]] = {}
    for player in new.players:
        for order in orders.get(player, ()):
            unit = new.unit(order.unit or "")
            if player not in expected:
                ctx.log("skip", f"{player}'s order '{order.format()}' skipped: it is not "
                                f"{player}'s turn.", player=player, order=order.format())
            elif unit is not None and order.verb == "dice":
                unit.policy = normalize_policy(tuple(spelled(a) for a in order.args))
            elif unit is not None:
                by_unit.setdefault(unit.id, []).append(order)

    values = place_dice(ctx, dice)
    notes: list[str] = []
    order_of_play = turn_order(new.living(), values, int(new.options["die"]), dice, notes)
    ranking = ", ".join(f"{u.id} {values[u.id]}" for u in order_of_play)
    ctx.log("initiative", f"Initiative: {ranking}" + (f" ({'; '.join(notes)})" if notes else "") + ".",
            order=[u.id for u in order_of_play])

    for unit in order_of_play:
        for order in by_unit.get(unit.id, []):
            try:
                if not unit.alive:
                    raise Skip(f"{unit.id} has fallen")
                HANDLERS[order.verb](ctx, unit, order)
            except Skip as why:
                ctx.log("skip", f"'{order.format()}' skipped: {why}.", unit=unit.id,
                        order=order.format())
    new.round += 1
    return Resolution(new, ctx.events, list(dice.rolls))
