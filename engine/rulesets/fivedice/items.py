"""Doing something else instead of one action: using an item or switching weapons.

"you can drop one of these actions (your choice) to do something else, e.g. use an
item, switch a weapon etc." The dropped action must still be unspent: dropping a
spent action would make the item free.
"""

from __future__ import annotations

from engine.rulesets.fivedice.actions import Skip, Turn
from engine.rulesets.fivedice.context import RoundContext
from engine.rulesets.fivedice.gear import GEAR
from engine.rulesets.fivedice.state import Unit

DROP_ORDER = ("attack", "defence", "move")  # without 'lose ...', the first one unspent


def drop_action(turn: Turn, lose: str | None) -> str:
    if turn.dropped:
        raise Skip("it has already dropped an action this round")
    if lose is not None:
        if not turn.has(lose):
            raise Skip(f"its {lose} is already spent, so it cannot be dropped")
        which = lose
    else:
        unspent = [a for a in DROP_ORDER if turn.has(a)]
        if not unspent:
            raise Skip("it has no action left to drop")
        which = unspent[0]
    turn.spend(which)
    turn.dropped = True
    return which


def use_item(ctx: RoundContext, unit: Unit, item_name: str, lose: str | None) -> None:
    if item_name not in unit.items:
        raise Skip(f"it has no {item_name} left")
    which = drop_action(ctx.turns[unit.id], lose)
    unit.items.remove(item_name)
    before = unit.life
    unit.life = min(unit.sheet.life, unit.life + GEAR.items[item_name].heal)
    ctx.log("item", f"{unit.id} uses {item_name} instead of its {which}: life {before} to "
                    f"{unit.life}.", unit=unit.id, item=item_name, dropped=which,
            healed=unit.life - before)


def switch_weapon(ctx: RoundContext, unit: Unit, weapon_name: str, lose: str | None) -> None:
    if weapon_name not in unit.sheet.weapons:
        raise Skip(f"it does not carry {weapon_name}")
    if unit.wielded == weapon_name:
        raise Skip(f"it already wields {weapon_name}")
    which = drop_action(ctx.turns[unit.id], lose)
    before = unit.wielded or "bare hands"
    unit.wielded = GEAR.weapons[weapon_name].name
    ctx.log("switch", f"{unit.id} switches from {before} to {weapon_name} instead of its {which}.",
            unit=unit.id, weapon=weapon_name, dropped=which)
