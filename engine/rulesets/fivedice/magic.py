"""Spells: the attack total hurts the target, and costs the caster life.

"Uses Attack; add dice results to all other values on combat sheet; Compare end result
of own attack vs. opponent's defense; Difference = damage done; Also compare Attack
result vs. own defense; Difference = Life Points paid to cast spell (can be reduced
to 0)".
"""

from __future__ import annotations

from engine.grid import distance
from engine.rulesets.fivedice.actions import Skip, attack_total, defence_total, need_attack
from engine.rulesets.fivedice.context import RoundContext
from engine.rulesets.fivedice.gear import GEAR
from engine.rulesets.fivedice.ranged import sight_between
from engine.rulesets.fivedice.state import Unit


def cast(ctx: RoundContext, caster: Unit, spell_name: str, target_id: str) -> None:
    turn = ctx.turns[caster.id]
    need_attack(turn)
    if spell_name not in caster.sheet.spells:
        raise Skip(f"{caster.id} does not know {spell_name}")
    spell = GEAR.spells[spell_name]
    target = ctx.enemy_target(caster, target_id)
    dist = distance(caster.square, target.square)
    if dist > spell.range:
        raise Skip(f"{target.id} is {dist} squares away; {spell.name} reaches {spell.range}")
    sight_between(ctx, caster, target)

    turn.spend("attack")
    power = attack_total(caster, turn, spell.power)
    guard = defence_total(target, ctx.turns[target.id])
    # Measured after the attack is spent: a skill-0 caster has given up its defence.
    own = defence_total(caster, turn)
    damage, price = max(0, power - guard), max(0, power - own)
    ctx.log("spell", f"{caster.id} casts {spell.name} at {target.id}: attack {power} against "
                     f"defence {guard}, {damage} damage; against its own defence {own} it pays "
                     f"{price} life.",
            attacker=caster.id, target=target.id, spell=spell.name, damage=damage, price=price)
    ctx.mark("spell", [caster.square, target.square], caster)
    ctx.wound(target, damage, f"{spell.name} of {caster.id}")
    ctx.wound(caster, price, f"paid its last life for {spell.name}")
