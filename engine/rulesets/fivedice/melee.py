"""Close combat: one skirmish resolved both ways at once.

"Compare end result of attack vs opponent's defense and vice versa. Subtract defense
from attack, the result is damage suffered from attack and vice versa. Attention this
consumes the attack and defense action from an opponent as well. Therefore resolving
the complete skirmish between the opponents for this round."
"""

from __future__ import annotations

from engine.grid import distance
from engine.rulesets.fivedice.actions import (
    Skip,
    attack_total,
    defence_total,
    melee_weapon,
    need_attack,
)
from engine.rulesets.fivedice.context import RoundContext
from engine.rulesets.fivedice.state import Unit


def melee(ctx: RoundContext, attacker: Unit, target_id: str) -> None:
    at = ctx.turns[attacker.id]
    need_attack(at)
    target = ctx.enemy_target(attacker, target_id)
    dt = ctx.turns[target.id]
    weapon = melee_weapon(attacker)
    dist = distance(attacker.square, target.square)
    if dist > weapon.reach:
        raise Skip(f"{target.id} is {dist} squares away; {weapon.name} reaches {weapon.reach}")

    # Spending in this order makes a skill-0 unit's single action count once: the
    # attacker's goes to its attack, the defender's to its defence.
    at.spend("attack")
    hit = attack_total(attacker, at, weapon.bonus)
    guard = defence_total(target, dt)
    dt.spend("defence")
    to_target = max(0, hit - guard)
    text = (f"{attacker.id} attacks {target.id} with {weapon.name}: attack {hit} against "
            f"defence {guard}, {to_target} damage")

    back = melee_weapon(target)
    to_attacker = 0
    if not dt.attack:
        text += f"; {target.id} does not strike back: its attack is spent"
    elif dist > back.reach:
        text += f"; {target.id} cannot strike back: {back.name} reaches {back.reach}"
    else:
        dt.spend("attack")
        back_hit = attack_total(target, dt, back.bonus)
        back_guard = defence_total(attacker, at)
        to_attacker = max(0, back_hit - back_guard)
        text += (f"; {target.id} strikes back with {back.name}: attack {back_hit} against "
                 f"defence {back_guard}, {to_attacker} damage")
    for turn in (at, dt):
        turn.attack = turn.defence = False
    ctx.log("melee", text + ".", attacker=attacker.id, target=target.id,
            damage=to_target, back_damage=to_attacker)
    ctx.mark("attack", [attacker.square, target.square], attacker)
    # Both ways at once: damage lands together, so both may fall.
    ctx.wound(target, to_target, f"struck by {attacker.id}")
    ctx.wound(attacker, to_attacker, f"struck back by {target.id}")
